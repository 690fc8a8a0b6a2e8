extension Double {
    /// To the nearest thousandth: seconds to the millisecond, as the reports write them.
    var thousandths: Double { (self * 1000).rounded() / 1000 }
}
