import Foundation

/// The report as Markdown tables, the form the README shows.
enum MarkdownReport {
    static func render(_ report: BenchReport) -> String {
        var lines: [String] = ["## Summary", "", summary(report), "## Scenarios", ""]
        lines.append("Measured \(report.date) on \(report.machine), \(report.rounds) interleaved round(s)\(report.smoke ? " (smoke run: small files, figures not meaningful)" : "").")
        lines.append("Command: `\(report.command)`.")
        lines.append("")
        if comparesPeers(report) {
            lines.append("Values are medians (min–max) over rounds. \"× best peer\" is, per round, the value divided by the best of mpg123, mpv, ffplay and GStreamer in that same round, then the median (min–max) of those ratios; below 1 is better than every peer where smaller is better.")
        } else {
            lines.append("Values are medians (min–max) over rounds.")
        }
        lines.append("")
        if !report.versions.isEmpty {
            lines.append("Peers: " + report.versions.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ") + ".")
            lines.append("")
        }
        for skipped in report.skipped { lines.append("- Skipped: \(skipped)") }
        if !report.skipped.isEmpty { lines.append("") }
        for scenario in report.scenarios {
            lines.append("### \(scenario.title)")
            lines.append("")
            lines.append(scenario.method)
            lines.append("")
            var header = "| Player |"
            var rule = "|---|"
            for metric in scenario.metrics {
                header += " \(escaped(metric.title)) |"
                rule += "---|"
                if metric.lowerIsBetter != nil {
                    header += " × best peer |"
                    rule += "---|"
                }
            }
            lines.append(header)
            lines.append(rule)
            for subject in Subject.allCases where scenario.hasValues(for: subject) {
                var row = "| \(subject.rawValue) |"
                for metric in scenario.metrics {
                    row += " \(cell(scenario, subject, metric)) |"
                    if metric.lowerIsBetter != nil {
                        row += " \(ratioCell(scenario.ratio(subject, metric.key))) |"
                    }
                }
                lines.append(row)
            }
            lines.append("")
            if let targets = scenario.targets, !targets.isEmpty {
                lines.append(contentsOf: targetTable(targets))
                lines.append("")
            }
            for note in scenario.notes { lines.append("- \(note)") }
            if !scenario.notes.isEmpty { lines.append("") }
        }
        for note in report.notes { lines.append("- \(note)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The headline figures in one table (the README shows it): one row per player, the
    /// median of each scenario's main figure with its ratio to the best peer.
    static func summary(_ report: BenchReport) -> String {
        let columns: [(scenario: String, metric: String, title: String)] = [
            ("startup", "startup", "Start-up"),
            ("ttfa", "ttfa", "First audio"),
            ("seek", "seek", "Seek"),
            ("throttle-0.9", "rebuffers", "Rebuffers at 0.9×"),
            ("throttle-0.9", "stalled", "Stalled at 0.9×"),
            ("recovery", "lost", "Lost in a drop"),
            ("cpu", "steady", "CPU"),
            ("cpu", "rss", "Peak memory"),
        ]
        let present = columns.filter { column in report.scenarios.contains { $0.key == column.scenario } }
        let ratios = comparesPeers(report) ? " Medians; in brackets the median ratio to the best peer of the same round (below 1: better than every peer)." : ""
        var lines = ["Measured \(report.date) on \(report.machine); `\(report.command)`, \(report.rounds) rounds.\(ratios)", ""]
        // A report of the format scenario alone has none of these columns: its targets are its summary.
        if !present.isEmpty {
            lines.append("| Player | " + present.map(\.title).joined(separator: " | ") + " |")
            lines.append("|---|" + String(repeating: "---|", count: present.count))
        }
        for subject in Subject.allCases where !present.isEmpty {
            var cells: [String] = []
            var any = false
            for column in present {
                guard let scenario = report.scenarios.first(where: { $0.key == column.scenario }),
                      let metric = scenario.metrics.first(where: { $0.key == column.metric }),
                      let summary = scenario.summary(subject, column.metric) else {
                    cells.append("–")
                    continue
                }
                any = true
                var text = format(summary.median, metric.unit)
                if let ratio = scenario.ratio(subject, column.metric) { text += String(format: " (%.2f)", ratio.median) }
                cells.append(text)
            }
            if any { lines.append("| \(subject.rawValue) | " + cells.joined(separator: " | ") + " |") }
        }
        let targets = report.scenarios.flatMap { $0.targets ?? [] }
        if !targets.isEmpty {
            if !present.isEmpty { lines.append("") }
            lines.append(contentsOf: targetTable(targets))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether any figure of the report is compared with the peers (the scale scenario's are not).
    private static func comparesPeers(_ report: BenchReport) -> Bool {
        report.scenarios.contains { $0.metrics.contains { $0.lowerIsBetter != nil } }
    }

    /// Each target with its median ratio (min–max over rounds), its limit and whether it is met.
    static func targetTable(_ targets: [Target]) -> [String] {
        var lines = ["| Target | Ratio | Limit | Met |", "|---|---|---|---|"]
        for target in targets {
            // A yes/no figure in every round: how many rounds said yes.
            if target.inEveryRound == true {
                let rounds = target.ratio.map { "\(target.roundsYes ?? 0)/\($0.count) rounds" } ?? "–"
                lines.append("| \(escaped(target.title)) | \(rounds) | every round | \(target.verdict) |")
                continue
            }
            // A ratio of two figures of one subject says in its title what it divides.
            let title = target.referenceMetric == nil ? "\(target.title): \(target.subject) ÷ \(target.reference)" : target.title
            lines.append("| \(escaped(title)) | \(ratioCell(target.ratio)) | ≤ \(String(format: "%.2f", target.limit)) | \(target.verdict) |")
        }
        return lines
    }

    /// `text` made safe for a table cell: a bare "|" (as in "|error|") would end the cell.
    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }

    private static func cell(_ scenario: ScenarioResult, _ subject: Subject, _ metric: Metric) -> String {
        let failed = scenario.failureCount(subject, metric.key)
        let suffix = failed > 0 ? " (\(failed) failed)" : ""
        guard let summary = scenario.summary(subject, metric.key) else { return "–" + suffix }
        if metric.unit == "yes/no" {
            return "\(Int(summaryTotal(scenario, subject, metric).rounded()))/\(summary.count)" + suffix
        }
        if summary.min == summary.max { return format(summary.median, metric.unit) + suffix }
        return "\(format(summary.median, metric.unit)) (\(format(summary.min, metric.unit))–\(format(summary.max, metric.unit)))" + suffix
    }

    private static func summaryTotal(_ scenario: ScenarioResult, _ subject: Subject, _ metric: Metric) -> Double {
        (scenario.values[subject.rawValue]?[metric.key] ?? []).compactMap { $0 }.reduce(0, +)
    }

    private static func ratioCell(_ summary: Summary?) -> String {
        guard let summary else { return "–" }
        let median = String(format: "%.2f", summary.median)
        if summary.count == 1 { return median }
        return "\(median) (\(String(format: "%.2f", summary.min))–\(String(format: "%.2f", summary.max)))"
    }

    static func format(_ value: Double, _ unit: String) -> String {
        switch unit {
        case "ms": return String(format: value < 10 ? "%.1f ms" : "%.0f ms", value)
        case "s": return String(format: "%.2f s", value)
        case "count": return value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
        case "MiB": return String(format: "%.1f MiB", value)
        case "ms/s": return String(format: "%.2f ms/s", value)
        case "x": return String(format: "%.0f×", value)
        default: return String(format: "%.3g %@", value, unit)
        }
    }
}
