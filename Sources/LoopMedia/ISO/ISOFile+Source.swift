import LoopIndex

/// The index reader on a path: a local file (one being written read as its bytes arrive), or an http(s) URL
/// through FFmpeg's protocol (counted per URL).
extension ISOFile {
    static func source(_ path: String) throws -> any ByteSource {
        if RemoteFile.isRemote(path) { return try RemoteFile(path) }
        return try GrowingFiles.source(path) ?? LocalFile(path)
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
