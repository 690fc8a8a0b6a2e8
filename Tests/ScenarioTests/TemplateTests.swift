import Testing
import Scenario

@Suite struct TemplateTests {
    @Test func rendersEveryPlaceholder() {
        let template = Template("{name}/{index}/{id}/push")
        #expect(template.render(name: "phone", index: 3, id: "phone-3") == "phone/3/phone-3/push")
    }

    @Test func leavesIDWhileTheIDIsMade() {
        #expect(Template("{id}-{index}").render(name: "n", index: 1, id: nil) == "{id}-1")
    }

    @Test func keepsOtherBracesAsWritten() {
        let template = Template("a{b c}{}{name")
        #expect(template.render(name: "x", index: 1, id: nil) == "a{b c}{}{name")
        #expect(template.placeholders.isEmpty)
    }

    /// Issue 38, item 8: `{{` is a brace, so that a value of the environment, whose braces the
    /// loader doubles (`Node.templateText`), renders as it is.
    @Test func aDoubledBraceIsABrace() {
        let template = Template("a{{id}/{{{id}/{{/{name}")
        #expect(template.render(name: "n", index: 1, id: "d-1") == "a{id}/{d-1/{/n")
        #expect(template.placeholders == ["id", "name"])
        #expect(template.text == "a{id}/{{id}/{/{name}")
        #expect(Template(Template.escaped("Tr0ub{id}{{")).render(name: "n", index: 1, id: "d-1") == "Tr0ub{id}{{")
    }

    @Test func listsPlaceholdersKnownOrNot() {
        #expect(Template("{nmae}/{index}/{x_1}").placeholders == ["nmae", "index", "x_1"])
    }

    @Test func changingTheSourceChangesTheRendering() {
        var template = Template("{name}")
        template.source = "{index}!"
        #expect(template.render(name: "n", index: 7, id: nil) == "7!")
        #expect(template == Template("{index}!"))
    }

    @Test func unicodeTextSurvives() {
        #expect(Template("温度/{name}/é").render(name: "ß", index: 1, id: nil) == "温度/ß/é")
    }
}
