import ArgumentParser

/// `--no-seam`, the same in every command that describes a file (analyze, fix and stitch describe the file they
/// read or wrote, its seam measured unless asked not to).
struct SeamOption: ParsableArguments {
    @Flag(
        name: .customLong("no-seam"),
        help:
            """
            Do not measure the seam (it decodes the first and last frames): no seam checks. fix and stitch say so in \
            their report of the file they wrote.
            """)
    var off = false

    /// Whether the seam is measured.
    var measured: Bool { !off }
}
