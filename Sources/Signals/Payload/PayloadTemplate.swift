/// The text of a `template` payload, split once into literal text and `{{placeholder}}`s.
///
/// A placeholder names a top-level field (its value is written as in JSON, but strings without
/// quotes, and a group as its JSON object), or the device's `id` or `index` when no field has that
/// name. Spaces inside the braces are ignored: `{{ temperature }}`. Everything else is literal
/// text, written byte for byte; a single brace is literal too, and in a run of three or more
/// opening braces the last two open the placeholder, so `{"t":{{t}}}` is a JSON object.
package struct PayloadTemplate: Sendable, Equatable {
    package enum Segment: Sendable, Equatable {
        case text(String)
        case placeholder(String)
    }

    /// A template that cannot be split: `message` says why; `offset` counts characters from the
    /// start of the text (0-based) to the offending `{{`.
    package struct SyntaxError: Error, Sendable, Equatable {
        package var message: String
        package var offset: Int

        package init(message: String, offset: Int) {
            self.message = message
            self.offset = offset
        }
    }

    /// Placeholders that name the device rather than a field.
    package static let devicePlaceholders = ["id", "index"]

    package let source: String
    package let segments: [Segment]

    /// `verbatim`: where `source` holds values of the environment (`${BODY}`), as offsets of
    /// its UTF-8 bytes: data, whose braces neither open nor close a placeholder.
    package init(_ source: String, verbatim: [Range<Int>] = []) throws(SyntaxError) {
        self.source = source
        let characters = Array(source)
        var isData = [Bool](repeating: false, count: characters.count)
        if !verbatim.isEmpty {
            var offset = 0
            for (position, character) in characters.enumerated() {
                isData[position] = verbatim.contains { $0.contains(offset) }
                offset += character.utf8.count
            }
        }
        /// Whether a brace of the template's own stands at `position`.
        func brace(_ brace: Character, at position: Int) -> Bool {
            position < characters.count && characters[position] == brace && !isData[position]
        }
        var segments: [Segment] = []
        var text = ""
        var position = 0
        while position < characters.count {
            guard brace("{", at: position), brace("{", at: position + 1) else {
                text.append(characters[position])
                position += 1
                continue
            }
            // In `{{{`, the last two braces open the placeholder; the first is text.
            if brace("{", at: position + 2) {
                text.append(characters[position])
                position += 1
                continue
            }
            var close = position + 2
            while close + 1 < characters.count, !(brace("}", at: close) && brace("}", at: close + 1)) {
                close += 1
            }
            guard close + 1 < characters.count else {
                throw SyntaxError(message: "'{{' is not closed by '}}'", offset: position)
            }
            let name = String(characters[(position + 2)..<close]).trimmingSpaces
            guard !name.isEmpty else {
                throw SyntaxError(message: "an empty placeholder '{{}}'; put a field name between the braces", offset: position)
            }
            if !text.isEmpty {
                segments.append(.text(text))
                text = ""
            }
            segments.append(.placeholder(name))
            position = close + 2
        }
        if !text.isEmpty { segments.append(.text(text)) }
        self.segments = segments
    }

    /// The placeholder names in order of appearance, repeats included.
    package var placeholders: [String] {
        segments.compactMap { segment in
            if case .placeholder(let name) = segment { return name }
            return nil
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var slice = Substring(self)
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
