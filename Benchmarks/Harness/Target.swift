/// A goal one subject's figure must reach, as a ratio to one other subject's figure of the
/// same round (issue 16: the `streamplay` command against mpg123), to the best peer's of the
/// same round (the format scenario: the library's first audio and seek), or to another figure
/// of the same subject and round (the scale scenario: the cost per player at 100 players over
/// that at 1), or to a fixed figure (the position scenario: the corrected median error over
/// 10 ms, and the corrected worst over 20 ms). Or, for a yes/no figure, that it be yes in every
/// round (the scale scenario: every player ended).
/// The report shows each as met or not, with the ratio.
struct Target: Codable, Sendable {
    let title: String
    let metric: String
    /// The subject held to the target, and the one it is measured against (raw values, or
    /// ``bestPeer``).
    let subject: String
    let reference: String
    /// The reference's figure, when it is not `metric` (absent from results of older runs).
    var referenceMetric: String?
    /// A fixed figure, in the metric's unit, that takes the place of the reference's (absent
    /// from results of older runs); `reference` then names it, e.g. "10 ms".
    var referenceValue: Double?
    /// The highest median ratio that meets the target (the figures are lower-is-better).
    let limit: Double
    /// Per round `subject / reference`, then the median (min–max); nil until summarised, or
    /// when no round gave both figures.
    var ratio: Summary?
    /// Set for a target that a yes/no figure be yes in every round (absent from results of
    /// older runs): ``ratio`` then holds the per-round figures, 1 for yes, and ``roundsYes``
    /// how many rounds said yes.
    var inEveryRound: Bool?
    var roundsYes: Int?

    /// The `reference` that stands for the best peer of each round (whichever it was).
    static let bestPeer = "best peer"

    init(_ title: String, metric: String, subject: Subject, reference: Subject, limit: Double) {
        self.title = title
        self.metric = metric
        self.subject = subject.rawValue
        self.reference = reference.rawValue
        self.limit = limit
    }

    /// A target between two figures of one subject in the same round: `metric` over `over`.
    init(_ title: String, metric: String, over referenceMetric: String, subject: Subject, limit: Double) {
        self.title = title
        self.metric = metric
        self.subject = subject.rawValue
        self.reference = subject.rawValue
        self.referenceMetric = referenceMetric
        self.limit = limit
    }

    /// A target on a figure itself: at most `value` (in `unit`, the metric's). The ratio is the
    /// figure over `value`, so the limit is 1.
    init(_ title: String, metric: String, subject: Subject, atMost value: Double, unit: String) {
        self.title = title
        self.metric = metric
        self.subject = subject.rawValue
        self.reference = MarkdownReport.format(value, unit)
        self.referenceValue = value
        self.limit = 1
    }

    /// A target that the yes/no figure `metric` be yes (1) in every round: the scale scenario's
    /// "every player ended". Met only when no round said no.
    init(_ title: String, yesInEveryRound metric: String, subject: Subject) {
        self.title = title
        self.metric = metric
        self.subject = subject.rawValue
        self.reference = "every round"
        self.limit = 1
        self.inEveryRound = true
    }

    /// A target against the best peer of each round: the ratio is the subject's "× best peer".
    init(_ title: String, metric: String, subject: Subject, bestPeerLimit limit: Double) {
        self.title = title
        self.metric = metric
        self.subject = subject.rawValue
        self.reference = Self.bestPeer
        self.limit = limit
    }

    /// Whether the median ratio is within the limit (nil: not measured); for a target in every
    /// round, whether every round said yes.
    var met: Bool? {
        guard let ratio else { return nil }
        return inEveryRound == true ? ratio.min >= 1 : ratio.median <= limit
    }

    /// The per-round ratios of two series of one scenario.
    static func ratios(_ values: [Double?], over reference: [Double?]) -> [Double] {
        zip(values, reference).compactMap { value, base in
            guard let value, let base, base > 0 else { return nil }
            return value / base
        }
    }

    /// "met" / "not met" / "not measured", for the tables.
    var verdict: String {
        switch met {
        case true?: "met"
        case false?: "**not met**"
        case nil: "not measured"
        }
    }
}
