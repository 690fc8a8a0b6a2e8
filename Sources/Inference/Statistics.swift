import Foundation

/// The few statistics inference and its check need, over plain arrays.
enum Statistics {
    static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }

    /// The population standard deviation.
    static func deviation(_ values: [Double]) -> Double {
        guard values.count > 1 else { return 0 }
        let mean = mean(values)
        return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)).squareRoot()
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The excess kurtosis: about 0 for a normal distribution, −1.2 for a uniform one.
    static func excessKurtosis(_ values: [Double]) -> Double {
        let deviation = deviation(values)
        guard values.count > 3, deviation > 0 else { return 0 }
        let mean = mean(values)
        let fourth = values.reduce(0) { $0 + pow4(($1 - mean) / deviation) } / Double(values.count)
        return fourth - 3
    }

    private static func pow4(_ x: Double) -> Double { x * x * x * x }

    /// The correlation of each value with the next of the same series, about `mean`: near 1 for
    /// a walk, near 0 for independent draws.
    static func lagOneCorrelation(_ series: [[Double]], mean: Double) -> Double {
        var product = 0.0
        var square = 0.0
        for values in series {
            for index in values.indices {
                let deviation = values[index] - mean
                square += deviation * deviation
                if index + 1 < values.count { product += deviation * (values[index + 1] - mean) }
            }
        }
        return square > 0 ? product / square : 0
    }

    /// The least-squares fit of `a + b·sin(2πt/period) + c·cos(2πt/period)` to the points, and
    /// the share of the variance it explains; `nil` when the points cannot decide it.
    static func sineFit(times: [Double], values: [Double], period: Double) -> (
        mean: Double, sine: Double, cosine: Double, explained: Double
    )? {
        guard times.count == values.count, times.count >= 8 else { return nil }
        var matrix = [[Double]](repeating: [0, 0, 0], count: 3)
        var right = [0.0, 0, 0]
        for (time, value) in zip(times, values) {
            let angle = 2 * Double.pi * time / period
            let row = [1, sin(angle), cos(angle)]
            for i in 0..<3 {
                right[i] += row[i] * value
                for j in 0..<3 { matrix[i][j] += row[i] * row[j] }
            }
        }
        guard let solution = solve(matrix, right) else { return nil }
        let mean = mean(values)
        var total = 0.0
        var residual = 0.0
        for (time, value) in zip(times, values) {
            let angle = 2 * Double.pi * time / period
            let fitted = solution[0] + solution[1] * sin(angle) + solution[2] * cos(angle)
            total += (value - mean) * (value - mean)
            residual += (value - fitted) * (value - fitted)
        }
        guard total > 0 else { return nil }
        return (solution[0], solution[1], solution[2], 1 - residual / total)
    }

    /// Gaussian elimination of a small system; `nil` when it is singular.
    private static func solve(_ matrix: [[Double]], _ right: [Double]) -> [Double]? {
        var a = matrix
        var b = right
        let n = b.count
        for column in 0..<n {
            guard let pivot = (column..<n).max(by: { abs(a[$0][column]) < abs(a[$1][column]) }), abs(a[pivot][column]) > 1e-9 else {
                return nil
            }
            a.swapAt(column, pivot)
            b.swapAt(column, pivot)
            for row in 0..<n where row != column {
                let factor = a[row][column] / a[column][column]
                for k in column..<n { a[row][k] -= factor * a[column][k] }
                b[row] -= factor * b[column]
            }
        }
        return (0..<n).map { b[$0] / a[$0][$0] }
    }
}
