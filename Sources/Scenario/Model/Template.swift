/// A text with `{name}`, `{index}` and `{id}` placeholders, filled per device; credentials
/// (`broker.username`, `password`) may also take `{token}`, a device's cell of a credentials file.
/// `{{` is a literal `{`: how a value from the environment (`${PASSWORD}`) keeps its braces as
/// they are (`Node.templateText`), since it is data, not a template.
///
/// The text is split into parts once, so rendering thousands of devices only appends strings.
/// A brace pair around anything else (`{nmae}`) is kept as written; the loader reports it, see
/// `placeholders`.
public struct Template: Sendable, Equatable {
    public var source: String {
        didSet { parts = Self.parts(of: source) }
    }

    private enum Part: Sendable, Equatable {
        case text(String)
        case name, index, id, token
    }

    private var parts: [Part]

    public init(_ source: String) {
        self.source = source
        self.parts = Self.parts(of: source)
    }

    /// The names of every `{word}` in the text, known or not, in order: `["name", "nmae"]`.
    package var placeholders: [String] {
        Self.placeholders(in: source).compactMap(\.name)
    }

    /// The text with its placeholders as written and `{{` as the brace it stands for: what a
    /// template that fills no device's says (`discovery.prefix`).
    package var text: String {
        parts.map { part in
            switch part {
            case .text(let text): text
            case .name: "{name}"
            case .index: "{index}"
            case .id: "{id}"
            case .token: "{token}"
            }
        }.joined()
    }

    /// `text` as a template's source that renders it as it is: its `{` doubled.
    package static func escaped(_ text: String) -> String {
        text.contains("{") ? text.split(separator: "{", omittingEmptySubsequences: false).joined(separator: "{{") : text
    }

    /// The placeholders a template may use; `id` is not allowed in the id template itself.
    package static let knownPlaceholders = ["name", "index", "id"]

    /// What a credential template takes besides a device's placeholders.
    package static let credentialPlaceholders = ["token"]

    /// Whether the text has a placeholder that differs from device to device.
    package var variesByDevice: Bool {
        parts.contains { $0 == .index || $0 == .id || $0 == .token }
    }

    /// Whether the text has `{token}`.
    package var usesToken: Bool { parts.contains(.token) }

    /// The text with every placeholder replaced; `id` is `nil` while the id itself is being made,
    /// `token` where the device has none (`{token}` stays as written).
    package func render(name: String, index: Int, id: String?, token: String? = nil) -> String {
        var result = ""
        for part in parts {
            switch part {
            case .text(let text): result += text
            case .name: result += name
            case .index: result += String(index)
            case .id: result += id ?? "{id}"
            case .token: result += token ?? "{token}"
            }
        }
        return result
    }

    private static func parts(of source: String) -> [Part] {
        var parts: [Part] = []
        var text = ""
        var textStart = source.startIndex
        for (name, range) in placeholders(in: source) {
            let part: Part
            switch name {
            case "name": part = .name
            case "index": part = .index
            case "id": part = .id
            case "token": part = .token
            case nil: part = .text("{")  // `{{`
            default: continue
            }
            text += source[textStart..<range.lowerBound]
            textStart = range.upperBound
            if case .text(let brace) = part {
                text += brace
                continue
            }
            if !text.isEmpty { parts.append(.text(text)) }
            text = ""
            parts.append(part)
        }
        text += source[textStart...]
        if !text.isEmpty { parts.append(.text(text)) }
        return parts
    }

    /// Every `{word}` (letters, digits, `_`) with where it stands, and every `{{` (a literal
    /// `{`, its name `nil`), from the left: `{{id}` is a brace and the text `id}`.
    private static func placeholders(in source: String) -> [(name: String?, range: Range<String.Index>)] {
        var found: [(String?, Range<String.Index>)] = []
        var search = source.startIndex
        while let open = source[search...].firstIndex(of: "{") {
            let nameStart = source.index(after: open)
            if nameStart < source.endIndex, source[nameStart] == "{" {
                search = source.index(after: nameStart)
                found.append((nil, open..<search))
                continue
            }
            let nameEnd = source[nameStart...].firstIndex { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_")) }
            guard let nameEnd, nameEnd > nameStart, source[nameEnd] == "}" else {
                search = nameStart
                continue
            }
            let close = source.index(after: nameEnd)
            found.append((String(source[nameStart..<nameEnd]), open..<close))
            search = close
        }
        return found
    }
}
