import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for remote-clip tests: serves one folder, honours `Range: bytes=a-b`
/// (206 with Content-Range) unless told not to, counts the body bytes it sends per path (what the kernel took
/// before the client closed: an open-ended request to a real server sends far more than the client reads) and the
/// requests that asked for the rest of the file, and can drop a connection after N body bytes (a server that goes
/// away mid-file). One request a connection.
public final class RangeServer: @unchecked Sendable {
    public let port: UInt16
    private let root: URL
    private let socket: Int32
    private let lock = NSLock()
    private var sent: [String: Int] = [:]
    private var openEnded: [String: Int] = [:]
    public var dropAfter: Int?
    /// false: a server that ignores Range and answers 200 with the whole file, saying no Accept-Ranges.
    public var honoursRanges = true

    public init(serving root: URL) throws {
        self.root = root
        let socket = SocketCalls.open()
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        guard bound == 0, listen(socket, 16) == 0 else { throw CocoaError(.fileReadUnknown) }
        withUnsafeMutablePointer(to: &address) { p in
            _ = p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.socket = socket
        Thread.detachNewThread { [self] in self.serve() }
    }

    deinit { close(socket) }

    public func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    public func bytesSent(_ name: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return sent["/" + name] ?? 0
    }

    /// Requests for `name` with no Range or an open-ended one (`bytes=N-`): the rest of the file.
    public func openEndedRequests(_ name: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return openEnded["/" + name] ?? 0
    }

    private func serve() {
        while true {
            let client = accept(socket, nil, nil)
            guard client >= 0 else { return }
            Thread.detachNewThread { [self] in self.handle(client) }
        }
    }

    private func handle(_ client: Int32) {
        defer { close(client) }
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let n = recv(client, &buffer, buffer.count, 0)
            guard n > 0 else { return }
            request += buffer[0..<n]
        }
        let text = String(decoding: request, as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return }
        let path = String(parts[1].split(separator: "?").first ?? "")
        guard
            let data = FileManager.default.contents(atPath: root.appendingPathComponent(String(path.dropFirst())).path)
        else {
            send(client, Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        var from = 0
        var to = data.count - 1
        var partial = false
        var bounded = false
        if let range = lines.first(where: { $0.lowercased().hasPrefix("range: bytes=") }) {
            let spec = range.dropFirst("range: bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
            if let a = Int(spec[0]) { from = a }
            if spec.count > 1, let b = Int(spec[1]) {
                to = min(b, data.count - 1)
                bounded = true
            }
            partial = honoursRanges
        }
        if !bounded {
            lock.lock()
            openEnded[path, default: 0] += 1
            lock.unlock()
        }
        if !honoursRanges { (from, to) = (0, data.count - 1) }
        guard from < data.count else {
            send(
                client,
                Array(
                    """
                    HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */\(data.count)\r\nContent-Length: \
                    0\r\nConnection: close\r\n\r\n
                    """
                    .utf8))
            return
        }
        var head =
            partial
            ? "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(from)-\(to)/\(data.count)\r\n"
            : "HTTP/1.1 200 OK\r\n"
        head += honoursRanges ? "Accept-Ranges: bytes\r\n" : ""
        head +=
            """
            Content-Length: \(to - from + 1)\r\nContent-Type: application/octet-stream\r\nConnection: \
            close\r\n\r\n
            """
        send(client, Array(head.utf8))
        var body = Array(data[from...to])
        if let drop = dropAfter { body = Array(body.prefix(max(0, drop))) }
        let count = send(client, body)
        lock.lock()
        sent[path, default: 0] += count
        lock.unlock()
    }

    @discardableResult
    private func send(_ client: Int32, _ bytes: [UInt8]) -> Int {
        var done = 0
        while done < bytes.count {
            let piece = bytes[done..<min(done + (16 << 10), bytes.count)]
            let n = piece.withUnsafeBytes { SocketCalls.send(client, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            done += n
        }
        return done
    }
}

/// The two socket calls whose spelling differs between glibc and Darwin.
enum SocketCalls {
    static func open() -> Int32 {
        #if canImport(Glibc)
            Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    /// send(2) without SIGPIPE when the client has gone (Darwin has no MSG_NOSIGNAL: the signal is ignored there).
    static func send(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.send(fd, bytes, count, Int32(MSG_NOSIGNAL))
        #else
            Darwin.send(fd, bytes, count, 0)
        #endif
    }
}
