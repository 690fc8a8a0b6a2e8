import FoundationEssentials
import Glibc
import Simulator

let environment = ProcessInfo.processInfo.environment
let arguments = Array(CommandLine.arguments.dropFirst())

/// Standard output and standard error, written whole.
enum Stream: Int32 {
    case standardOutput = 1, standardError = 2
}

func write(_ text: String, to stream: Stream) {
    Logger.write(text, toDescriptor: stream.rawValue)
}

let code: ExitCode
do {
    switch try ArgumentParser.parse(arguments, environment: environment) {
    case .help(let topic):
        write(Help.text(topic: topic), to: .standardOutput)
        code = .success
    case .missingCommand:
        write(Help.text(topic: nil), to: .standardError)
        code = .usage
    case .version:
        write(Help.version + "\n", to: .standardOutput)
        code = .success
    case .validate(let files):
        code = ValidateCommand.run(
            files, environment: environment,
            output: { write($0, to: .standardOutput) },
            errors: { write($0, to: .standardError) })
    case .sample(let options):
        code = SampleCommand.run(
            options, environment: environment,
            output: { write($0, to: .standardOutput) },
            errors: { write($0, to: .standardError) })
    case .reportMerge(let options):
        code = ReportCommand.merge(
            options, output: { write($0, to: .standardOutput) },
            errors: { write($0, to: .standardError) })
    case .reportConvert(let options):
        code = ReportCommand.convert(
            options, output: { write($0, to: .standardOutput) },
            errors: { write($0, to: .standardError) })
    case .run(let options):
        code = RunCommand.execute(options, environment: environment)
    case .record(let options):
        code = RecordCommand.execute(options, environment: environment)
    }
} catch {
    write("devsim: \(error.message)\n\(error.hint)\n", to: .standardError)
    code = .usage
}
exit(code.rawValue)
