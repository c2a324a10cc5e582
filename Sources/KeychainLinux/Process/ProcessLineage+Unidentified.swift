extension ProcessLineage {
    /// The lineage of a caller whose process could not be read (it exited, the bus did not say,
    /// or `/proc` refused): one link with the process id if known (else 0) and no executable, so
    /// it matches no list of trusted applications.
    package static func unidentified(pid: Int32?) -> ProcessLineage {
        ProcessLineage(links: [Link(pid: pid ?? 0, executable: nil, commandName: nil, startTime: 0, parentPID: 0)])
    }
}
