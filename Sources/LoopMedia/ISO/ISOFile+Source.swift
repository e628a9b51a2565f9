import LoopIndex

/// The index reader on a path: a local file, or an http(s) URL through FFmpeg's protocol (counted per URL).
extension ISOFile {
    static func source(_ path: String) throws -> any ByteSource {
        RemoteFile.isRemote(path) ? try RemoteFile(path) : try LocalFile(path)
    }

    static func read(path: String, fileSize: Int64, locations: Bool = false) throws -> ISOFile? {
        guard let file = try? Self.source(path) else { return nil }
        return try read(file, fileSize: fileSize, locations: locations)
    }

    /// One sample's bytes.
    static func bytes(_ path: String, _ location: SampleLocation) throws -> [UInt8] {
        try readBox(try source(path), location.offset, location.size, what: "sample")
    }
}
