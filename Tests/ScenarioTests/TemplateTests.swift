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
