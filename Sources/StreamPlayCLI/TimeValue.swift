import ArgumentParser

/// A time given as seconds ("90", "1.5") or minutes and seconds ("1:30", "01:02.5").
struct TimeValue: ExpressibleByArgument, Equatable {
    let seconds: Double

    init?(argument: String) {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            // At most a day: anything longer is a typo, not a position in a track.
            guard let value = Double(parts[0]), value >= 0, value.isFinite, value <= 86_400 else { return nil }
            seconds = value
        case 2:
            guard let minutes = Int(parts[0]), minutes >= 0, let rest = Double(parts[1]), rest >= 0, rest < 60 else { return nil }
            seconds = Double(minutes) * 60 + rest
        case 3:
            guard let hours = Int(parts[0]), hours >= 0, let minutes = Int(parts[1]), (0..<60).contains(minutes),
                  let rest = Double(parts[2]), rest >= 0, rest < 60 else { return nil }
            seconds = Double(hours) * 3600 + Double(minutes) * 60 + rest
        default:
            return nil
        }
    }

    /// mm:ss for display, h:mm:ss past an hour.
    static func format(_ seconds: Double) -> String {
        let total = max(Int(seconds), 0)
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if total >= 3600 {
            return "\(total / 3600):\(twoDigits(total / 60 % 60)):\(twoDigits(total % 60))"
        }
        return "\(twoDigits(total / 60)):\(twoDigits(total % 60))"
    }
}
