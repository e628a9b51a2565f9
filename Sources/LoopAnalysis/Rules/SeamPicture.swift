/// The picture step at a seam: how unlike two small pictures are, 0-255, the larger of the
/// mean luma difference and the mean chroma difference (Cb and Cr samples alike). A hue cut at one brightness
/// (a red field turning blue of the same luma) moves the chroma by a hundred and more and the luma by nothing;
/// footage whose colour holds keeps its luma figure. One function for analyze's seam-visual-jump and loop's
/// ranking, so a colour jump is a cut to both.
package enum SeamPicture {
    /// `luma` and `chroma` of two pictures of the same size (chroma may be empty: the luma alone).
    public static func difference(_ lumaA: [UInt8], _ chromaA: [UInt8], _ lumaB: [UInt8], _ chromaB: [UInt8])
        -> Double
    {
        max(meanAbsolute(lumaA, lumaB), meanAbsolute(chromaA, chromaB))
    }

    /// Mean absolute difference over the common length; 0 for none.
    static func meanAbsolute(_ a: [UInt8], _ b: [UInt8]) -> Double {
        let n = min(a.count, b.count)
        guard n > 0 else { return 0 }
        var sum = 0
        for k in 0..<n { sum += abs(Int(a[k]) - Int(b[k])) }
        return Double(sum) / Double(n)
    }
}
