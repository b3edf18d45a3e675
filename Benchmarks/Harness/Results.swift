import Foundation

/// One figure a scenario measures, per subject and round.
struct Metric: Codable, Sendable {
    let key: String
    let title: String
    /// "ms", "s", "count", "yes/no", "%", "MiB", "ms/s".
    let unit: String
    /// Whether a smaller value is better; ratios to the best peer are given only for such metrics.
    let lowerIsBetter: Bool?
}

/// Median, extremes and count of a series.
struct Summary: Codable, Sendable {
    let median: Double
    let min: Double
    let max: Double
    let count: Int

    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        min = sorted[0]
        max = sorted[sorted.count - 1]
        count = sorted.count
    }
}

/// All values of one scenario: `values[subject][metric]` holds one entry per round (nil: the
/// round gave no value, e.g. a timeout).
final class ScenarioResult: Codable, @unchecked Sendable {
    let key: String
    let title: String
    let method: String
    let metrics: [Metric]
    private(set) var values: [String: [String: [Double?]]] = [:]
    var notes: [String] = []
    /// Filled by ``summarise()`` for the report.
    private(set) var summaries: [String: [String: Summary]] = [:]
    private(set) var ratios: [String: [String: Summary]] = [:]
    private(set) var failures: [String: [String: Int]] = [:]
    /// The goals this scenario's figures are held to (absent from results of older runs).
    private(set) var targets: [Target]?

    init(key: String, title: String, method: String, metrics: [Metric], targets: [Target]? = nil) {
        self.key = key
        self.title = title
        self.method = method
        self.metrics = metrics
        self.targets = targets
    }

    func record(_ subject: Subject, _ metric: String, round: Int, _ value: Double?) {
        var series = values[subject.rawValue, default: [:]][metric, default: []]
        while series.count < round { series.append(nil) }
        if series.count == round { series.append(value) } else { series[round] = value }
        values[subject.rawValue, default: [:]][metric] = series
    }

    /// Medians, and per round the ratio to the best peer of that round.
    func summarise() {
        for (subject, byMetric) in values {
            for (metric, series) in byMetric {
                summaries[subject, default: [:]][metric] = Summary(series.compactMap { $0 })
                failures[subject, default: [:]][metric] = series.filter { $0 == nil }.count
            }
        }
        let peers = Subject.allCases.filter(\.isPeer).map(\.rawValue)
        for metric in metrics where metric.lowerIsBetter != nil {
            let rounds = values.values.map { $0[metric.key]?.count ?? 0 }.max() ?? 0
            for (subject, byMetric) in values {
                guard let series = byMetric[metric.key] else { continue }
                var roundRatios: [Double] = []
                for round in 0..<min(rounds, series.count) {
                    guard let value = series[round] else { continue }
                    let peerValues = peers.compactMap { peer -> Double? in
                        guard let peerSeries = values[peer]?[metric.key], round < peerSeries.count else { return nil }
                        return peerSeries[round]
                    }
                    let best = metric.lowerIsBetter == true ? peerValues.min() : peerValues.max()
                    guard let best, best > 0 else { continue }
                    roundRatios.append(value / best)
                }
                ratios[subject, default: [:]][metric.key] = Summary(roundRatios)
            }
        }
        targets = targets?.map { target in
            var target = target
            if target.inEveryRound == true {
                // Rounds without the figure (the child gave no report) count as no.
                let series = (values[target.subject]?[target.metric] ?? []).map { $0 ?? 0 }
                target.ratio = Summary(series)
                target.roundsYes = series.filter { $0 >= 1 }.count
            } else if target.reference == Target.bestPeer {
                target.ratio = ratios[target.subject]?[target.metric]
            } else if let fixed = target.referenceValue, fixed > 0 {
                let series = values[target.subject]?[target.metric] ?? []
                target.ratio = Summary(series.compactMap { $0.map { $0 / fixed } })
            } else {
                target.ratio = Summary(Target.ratios(values[target.subject]?[target.metric] ?? [],
                                                     over: values[target.reference]?[target.referenceMetric ?? target.metric] ?? []))
            }
            return target
        }
    }

    func summary(_ subject: Subject, _ metric: String) -> Summary? { summaries[subject.rawValue]?[metric] }
    func ratio(_ subject: Subject, _ metric: String) -> Summary? { ratios[subject.rawValue]?[metric] }
    func failureCount(_ subject: Subject, _ metric: String) -> Int { failures[subject.rawValue]?[metric] ?? 0 }
    func hasValues(for subject: Subject) -> Bool { values[subject.rawValue] != nil }
}

/// Everything one run of the harness measured.
struct BenchReport: Codable, Sendable {
    var date: String
    var machine: String
    var command: String
    var rounds: Int
    var smoke: Bool
    var versions: [String: String]
    var skipped: [String]
    var scenarios: [ScenarioResult]
    var notes: [String]
}
