import CFFmpeg
public func ffVersion() -> String { String(cString: av_version_info()) }
