import FoundationEssentials

/// SoundCloud's timestamps, `yyyy/MM/dd HH:mm:ss +0000` (also with `-` between the date parts).
enum SoundCloudTimestamp {
    /// The years accepted: anything outside is not a SoundCloud timestamp, and a huge year
    /// would overflow the day arithmetic.
    static let years = 1970...9999

    /// The date `text` names, or nil when it is not in that form (or its year is outside
    /// ``years``).
    static func parse(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "/" || $0 == "-" || $0 == ":" || $0 == "T" || $0 == "Z" })
        guard parts.count >= 6 else { return nil }
        let numbers = parts.prefix(6).compactMap { Int($0) }
        guard numbers.count == 6 else { return nil }
        let (year, month, day, hour, minute, second) = (numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5])
        guard years.contains(year), (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour),
              (0...59).contains(minute), (0...60).contains(second) else { return nil }
        var offset = 0
        let zone = text.split(separator: " ").last ?? ""
        if parts.count > 6, zone.count == 5, let sign = zone.first, sign == "+" || sign == "-",
           let value = Int(zone.dropFirst()) {
            offset = (value / 100 * 3600 + value % 100 * 60) * (sign == "-" ? -1 : 1)
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }
}
