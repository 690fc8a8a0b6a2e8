#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few libm functions the generators need, behind one platform import, so that no other file
/// depends on the C library (and none on Foundation).
@usableFromInline
enum Math {
    @inlinable static func ln(_ x: Double) -> Double { log(x) }
    @inlinable static func sine(_ x: Double) -> Double { sin(x) }
    @inlinable static func cosine(_ x: Double) -> Double { cos(x) }
}
