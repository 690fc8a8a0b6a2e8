extension Double {
    /// To the nearest thousandth: seconds to the millisecond, as the reports write them.
    package var thousandths: Double { (self * 1000).rounded() / 1000 }
}
