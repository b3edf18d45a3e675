/// The measurements, in the order of the benchmark issue; each returns its filled results.
protocol Scenario {
    /// The name used with --scenarios.
    static var key: String { get }
    static func run(_ context: BenchContext) throws -> [ScenarioResult]
}

enum Scenarios {
    nonisolated(unsafe) static let all: [any Scenario.Type] = [
        ProcessStartup.self, CommandFootprint.self, TimeToFirstAudio.self, SeekLatency.self, ThrottledLinks.self,
        BusyMachine.self, DropRecovery.self, PositionAccuracy.self, PipeWirePositionAccuracy.self, CPUAndMemory.self, LongStreamMemory.self, Scale.self,
        FormatScenario.self,
    ]
}
