/// Where two runs of interleaved 16-bit samples first differ, for a test's expectation.
///
/// Write `#expect(SampleDifference.between(played, reference) == nil)`, not
/// `#expect(played == reference)`: when two arrays differ, Swift Testing describes an `==` of
/// collections by their difference, which it works out with Myers' algorithm. On a track's
/// millions of samples that takes hours, so a failing comparison hangs the test run instead of
/// failing it. This finds the first difference in one pass and says where it is.
public enum SampleDifference {
    /// `nil` when `actual` and `expected` hold the same samples; otherwise where they first
    /// differ and how long each is, e.g. "sample 88200 is 12, expected 11 (4410000 samples,
    /// expected 4410000)".
    public static func between(_ actual: some Collection<Int16>, _ expected: some Collection<Int16>) -> String? {
        var index = 0
        var left = actual.makeIterator(), right = expected.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return nil
            case let (a?, b?) where a == b:
                index += 1
            case let (a, b):
                let found = a.map(String.init) ?? "past the end"
                let wanted = b.map(String.init) ?? "past the end"
                return "sample \(index) is \(found), expected \(wanted) (\(actual.count) samples, expected \(expected.count))"
            }
        }
    }
}
