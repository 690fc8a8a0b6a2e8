#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few libm functions the generators and formulas need, behind one platform import, so that
/// no other file depends on the C library (and none on Foundation).
@usableFromInline
enum Math {
    @inlinable static func ln(_ x: Double) -> Double { log(x) }
    @inlinable static func decimalLogarithm(_ x: Double) -> Double { log10(x) }
    @inlinable static func exponential(_ x: Double) -> Double { exp(x) }
    @inlinable static func power(_ x: Double, _ y: Double) -> Double { pow(x, y) }
    @inlinable static func remainder(_ x: Double, _ y: Double) -> Double { fmod(x, y) }
    @inlinable static func sine(_ x: Double) -> Double { sin(x) }
    @inlinable static func cosine(_ x: Double) -> Double { cos(x) }
    @inlinable static func tangent(_ x: Double) -> Double { tan(x) }
    @inlinable static func arcsine(_ x: Double) -> Double { asin(x) }
    @inlinable static func arccosine(_ x: Double) -> Double { acos(x) }
    @inlinable static func arctangent(_ x: Double) -> Double { atan(x) }
    @inlinable static func arctangent2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
}
