// Node tests of the page module (aria.js) over the fake DOM of dom.mjs.
// What Chrome gives is checked against Chrome itself by the resolver's and
// the snapshot's fidelity tests; the expectations here are those answers,
// pinned where they run in milliseconds, plus the module's own promise:
// its exact answers (what a snapshot shows) are always among its superset
// answers (what a role locator's candidate search keeps).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { all, byTestId, h, page } from "./dom.mjs";

const source = readFileSync(new URL("../aria.js", import.meta.url), "utf8");
const ns = new Function(`return (${source}\n);`)();

const GIF = "data:image/gif;base64,R0lGODlhAQABAAAAACw=";

// one builds a page of one element (with data-t=x) and returns it.
function one(tag, attrs, ...kids) {
  const doc = page(h(tag, { ...attrs, "data-t": "x" }, ...kids));
  return byTestId(doc, "x");
}

function roleOf(el) {
  return ns.view(el.ownerDocument).role(el);
}

// Chrome's role for each element, as its accessibility tree writes it
// (the snapshot's fidelity pages and Chrome 156's answers).
const roleCases = [
  ["button", () => one("button", {}, "Save"), "button"],
  ["link", () => one("a", { href: "/a" }, "Home"), "link"],
  ["DPUB role (Sphinx's footnote link)", () => one("a", { href: "#fn1", role: "doc-noteref" }, "[1]"), "doc-noteref"],
  ["graphics role", () => one("div", { role: "graphics-symbol" }), "graphics-symbol"],
  ["a without href", () => one("a", {}, "No href"), "generic"],
  ["heading", () => one("h2", { "aria-level": "4" }, "Sub"), "heading"],
  ["named section", () => one("section", { "aria-label": "News" }), "region"],
  ["unnamed section", () => one("section", {}, "unnamed"), "generic"],
  ["aside", () => one("aside", {}, "Side"), "complementary"],
  ["top header", () => one("header", {}, "Top"), "banner"],
  ["header in an article", () => byTestId(page(h("article", h("header", { "data-t": "x" }, "Top"))), "x"), "sectionheader"],
  ["top footer", () => one("footer", {}, "Bottom"), "contentinfo"],
  ["footer in a section", () => byTestId(page(h("section", h("footer", { "data-t": "x" }, "B"))), "x"), "sectionfooter"],
  ["text input", () => one("input", {}), "textbox"],
  ["email input", () => one("input", { type: "email" }), "textbox"],
  ["search input", () => one("input", { type: "search" }), "searchbox"],
  ["input with a list", () => one("input", { list: "dl" }), "combobox"],
  ["checkbox", () => one("input", { type: "checkbox" }), "checkbox"],
  ["switch", () => one("input", { type: "checkbox", switch: "" }), "switch"],
  ["radio", () => one("input", { type: "radio" }), "radio"],
  ["range", () => one("input", { type: "range" }), "slider"],
  ["number", () => one("input", { type: "number" }), "spinbutton"],
  ["submit", () => one("input", { type: "submit" }), "button"],
  ["reset", () => one("input", { type: "reset" }), "button"],
  ["image input", () => one("input", { type: "image", alt: "Go", src: GIF }), "button"],
  ["file", () => one("input", { type: "file" }), "button"],
  ["color", () => one("input", { type: "color" }), "ColorWell"],
  ["COLOR (type is case-insensitive)", () => one("input", { type: "COLOR" }), "ColorWell"],
  ["' color' (type is not trimmed: a text box)", () => one("input", { type: " color" }), "textbox"],
  ["date", () => one("input", { type: "date" }), "Date"],
  ["time", () => one("input", { type: "time" }), "InputTime"],
  ["month", () => one("input", { type: "month" }), "DateTime"],
  ["week", () => one("input", { type: "week" }), "DateTime"],
  ["datetime-local", () => one("input", { type: "datetime-local" }), "DateTime"],
  ["hidden input", () => one("input", { type: "hidden" }), "none"],
  ["select", () => one("select", {}, h("option", "S")), "combobox"],
  ["multiple select", () => one("select", { multiple: "" }, h("option", "x")), "listbox"],
  ["img with alt", () => one("img", { alt: "A cat", src: GIF }), "img"],
  ["img with empty alt", () => one("img", { alt: "", src: GIF }), "none"],
  ["svg", () => one("svg", {}), "img"],
  ["label", () => one("label", {}, "Name"), "LabelText"],
  ["summary", () => byTestId(page(h("details", h("summary", { "data-t": "x" }, "More"), "Body")), "x"), "DisclosureTriangle"],
  ["cell", () => byTestId(page(h("table", h("tbody", h("tr", h("td", { "data-t": "x" }, "1"))))), "x"), "cell"],
  ["grid cell", () => byTestId(page(h("table", { role: "grid" }, h("tbody", h("tr", h("td", { "data-t": "x" }, "1"))))), "x"), "gridcell"],
  ["th in thead", () => byTestId(page(h("table", h("thead", h("tr", h("th", { "data-t": "x" }, "Name"))))), "x"), "columnheader"],
  // Chrome's rule, measured on Chrome 156: a td with anything in it (white space too) makes the
  // th of its row a row header, in a thead too; an empty td does not.
  ["th beside a td in thead", () => byTestId(page(h("table", h("thead", h("tr", h("td", " "), h("th", { "data-t": "x" }, "H1"), h("th", "H2"))))), "x"), "rowheader"],
  ["th beside an empty td", () => byTestId(page(h("table", h("tbody", h("tr", h("th", { "data-t": "x" }, "H1"), h("td"))))), "x"), "columnheader"],
  ["th beside a td with text", () => byTestId(page(h("table", h("tbody", h("tr", h("th", { "data-t": "x" }, "H1"), h("td", "x"))))), "x"), "rowheader"],
  ["th scope=row", () => byTestId(page(h("table", h("tbody", h("tr", h("th", { scope: "row", "data-t": "x" }, "Ann"), h("td", "10"))))), "x"), "rowheader"],
  ["role fallback", () => one("div", { role: "foo link", tabindex: "0" }, "Fallback"), "link"],
  ["presentation on a focusable button", () => one("button", { role: "presentation" }, "Still"), "button"],
  // Chrome writes none; a snapshot folds both.
  ["presentation on a heading", () => one("h2", { role: "presentation" }, "Not heading"), "presentation"],
  ["role=image", () => one("div", { role: "image", "aria-label": "Logo" }), "img"],
  ["contenteditable div", () => one("div", { contenteditable: "" }, "Edit"), "generic"],
  ["dl", () => one("dl", {}, h("dt", "term"), h("dd", "def")), "DescriptionList"],
  ["br", () => one("br", {}), "LineBreak"],
  ["video", () => one("video", {}), "Video"],
  ["audio", () => one("audio", {}), "Audio"],
  ["ruby", () => one("ruby", {}, "r"), "Ruby"],
];

test("role: the role Chrome gives", () => {
  for (const [name, make, want] of roleCases) {
    assert.equal(roleOf(make()), want, name);
  }
});

// canon is the resolver's canonRole: lower case, image → img, presentation → none.
const canon = (r) => ns.canonRole(r.toLowerCase());

test("roleTest: every role a snapshot shows is a candidate of the role locator", () => {
  for (const [name, make] of roleCases) {
    const el = make();
    const role = roleOf(el);
    assert.ok(ns.roleTest(canon(role))(el), `${name}: role ${role} is not a candidate`);
  }
  // And over every element of a varied page.
  for (const el of all(varied())) {
    const role = roleOf(el);
    assert.ok(ns.roleTest(canon(role))(el), `<${el.localName}>: role ${role} is not a candidate`);
  }
});

test("roleTest: an input whose type has spaces is a text box candidate (Chrome does not trim it)", () => {
  const el = one("input", { type: " color", "aria-label": "c1" });
  assert.ok(ns.roleTest("textbox")(el));
  assert.ok(!ns.roleTest("colorwell")(el));
  assert.deepEqual(ns.inputRoles(el), ["textbox", "combobox", "searchbox"]);
});

test("roleTest: unknown roles take every element; known ones rule out the rest", () => {
  const b = one("button", {}, "x");
  assert.ok(ns.roleTest("somethingnew")(b));
  assert.ok(!ns.roleTest("link")(b));
  assert.ok(ns.roleTest("link")(one("div", { role: "link" })));
  assert.ok(ns.roleTest("group")(one("my-widget", {})), "a custom element may set any role");
  assert.ok(ns.roleTest("textbox")(one("div", { contenteditable: "true" })));
});

// Names Chrome computes (the fidelity pages, and Chrome 156 for the
// generated content cases).
const nameCases = [
  ["aria-label", () => one("button", { "aria-label": "Close dialog" }, "×"), "Close dialog"],
  ["content, white space collapsed", () => one("button", {}, "  Save\n  ", h("b", "now"), " "), "Save now"],
  ["submit", () => one("input", { type: "submit" }), "Submit"],
  ["reset", () => one("input", { type: "reset" }), "Reset"],
  ["button value", () => one("input", { type: "button", value: "Push" }), "Push"],
  ["image input alt", () => one("input", { type: "image", alt: "Go", src: GIF }), "Go"],
  ["img alt in content", () => one("button", {}, h("img", { alt: "Print", src: GIF }), " it"), "Print it"],
  ["title only", () => one("button", { title: "Only title" }), "Only title"],
  ["placeholder", () => one("input", { type: "email", placeholder: "Your email" }), "Your email"],
  ["hidden text left out", () => one("button", {}, "A", h("span", { style: "display:none" }, "B"), "C"), "AC"],
  ["aria-hidden text left out", () => one("a", { href: "/p" }, h("span", { "aria-hidden": "true" }, "★"), " Starred"), "Starred"],
  ["generated content", () => one("button", { class: "i", "::before": '"Icon "' }, "text"), "Icon text"],
  ["generated strings are concatenated", () => one("button", { "::before": '"Sa" "ve"' }), "Save"],
  ["generated content's alternative text", () => one("button", { "::before": '"★" / "Starred"' }), "Starred"],
  ["an image as generated content is no text (its URL is no name)", () => one("button", { "::before": `url("data:image/svg+xml,%3csvg xmlns='http://www.w3.org/2000/svg'%3e%3c/svg%3e")` }, "Contents"), "Contents"],
  ["an image's alternative text after a slash", () => one("button", { "::before": 'url("next.svg") / "Next"' }), "Next"],
  ["inline generated content is glued to the text", () => one("button", { "::before": '"Icon"' }, "text"), "Icontext"],
  ["generated content its rules hide is no text", () => one("h1", { "::before": { content: '"Debian"', display: "none" } }, "Debian"), "Debian"],
  ["generated content made invisible is no text", () => one("button", { "::after": { content: '" (new)"', visibility: "hidden" } }, "Save"), "Save"],
  // Sphinx's numbered sections: <a><span>7. </span>Input and Output</a>.
  ["a child's trailing space separates it from the text after it", () => one("a", { href: "/io" }, h("span", "7. "), "Input and Output"), "7. Input and Output"],
  ["a child's leading space too", () => one("a", { href: "/io" }, "Input", h("span", " and Output")), "Input and Output"],
  ["no space, no separation", () => one("a", { href: "/io" }, h("span", "7."), "Input"), "7.Input"],
  ["the space of a nested child", () => one("button", {}, h("span", h("b", "Save "), h("i", "all")), "!"), "Save all!"],
  // Spaces Chrome puts between children: around an image or a text from another source.
  ["two images' alts", () => one("button", {}, h("img", { alt: "A", src: GIF }), h("img", { alt: "B", src: GIF })), "A B"],
  ["an aria-label beside text", () => one("button", {}, "15", h("span", { "aria-label": "A" }, "x"), "B"), "15 A B"],
  ["an image with an empty alt adds no space", () => one("button", {}, "10", h("img", { alt: "", src: GIF }), "B"), "10B"],
  ["inline spans stay glued", () => one("button", {}, "3", h("span", "A"), "B"), "3AB"],
  ["a DPUB link's name is its content", () => one("a", { href: "#fn1", role: "doc-noteref" }, "[1]"), "[1]"],
  ["a DPUB section's is not", () => one("section", { role: "doc-chapter" }, "Chapter one"), ""],
  // Containers inside a name give their label only (Chrome 156, role by role).
  ["a treeitem leaves its group out", () => one("div", { role: "treeitem" }, "Parent ", h("div", { role: "group" }, h("div", { role: "treeitem" }, "Child"))), "Parent"],
  ["a menuitem leaves its submenu out", () => one("div", { role: "menuitem" }, "File ", h("div", { role: "menu" }, h("div", { role: "menuitem" }, "Open"))), "File"],
  ["a container's label stays", () => one("button", {}, "Btn ", h("span", { role: "group", "aria-label": "Kids" }, "grp")), "Btn Kids"],
  ["a nav in a link", () => one("a", { href: "/n" }, "Go ", h("nav", "menu")), "Go"],
  ["a figure's caption in a link", () => one("a", { href: "/f" }, h("figure", h("figcaption", "Cap")), "Fig"), "Fig"],
  ["an image's alt in a button", () => one("button", {}, h("img", { alt: "Print", src: GIF }), " it"), "Print it"],
  ["a list in a link stays", () => one("a", { href: "/l" }, "Link ", h("ul", h("li", "one"))), "Link one"],
  ["a closed details shows its summary", () => one("a", { href: "/d" }, h("details", h("summary", "S"), "D")), "S"],
  ["a control's label inside a name counts once", () => one("div", { role: "option" }, h("input", { type: "checkbox", id: "c1" }), h("label", { for: "c1" }, "First")), "First"],
  ["a label before its control too", () => one("div", { role: "option" }, h("label", { for: "c2" }, "Second"), h("input", { type: "checkbox", id: "c2" })), "Second"],
  // An icon font's glyph (a private-use character) shows no text: Chrome
  // names these "\uf0c7"; egohost leaves the glyphs out (NO_TEXT).
  ["an icon font's glyph alone is no name: the tooltip names it", () => one("button", { title: "Save and Checkpoint" }, h("i", { "::before": '"\uf0c7"' })), "Save and Checkpoint"],
  ["a glyph beside text is left out", () => one("a", { href: "/tree" }, h("i", { "::before": '"\uf07b"' }), " Home"), "Home"],
  ["a glyph in the text itself too", () => one("button", {}, "\uf04b Run"), "Run"],
  ["a supplementary private-use glyph too", () => one("button", { title: "Star" }, "\u{F0001}"), "Star"],
  ["a child's glyph gives way to the child's tooltip", () => one("a", { href: "/f" }, h("i", { title: "Folder", "::before": '"\uf07b"' })), "Folder"],
  ["a glyph with no tooltip: no name", () => one("a", { href: "/h" }, h("i", { "::before": '"\uf015"' })), ""],
  ["zero-width spaces show nothing", () => one("button", {}, "Sa\u200bve\ufeff"), "Save"],
  ["a combobox gives its label, not its option", () => one("button", {}, "Box ", h("div", { role: "combobox", "aria-label": "Lab" }, h("span", { "aria-selected": "true" }, "Chosen"))), "Box Lab"],
];

function nameOf(el) {
  return ns.norm(ns.view(el.ownerDocument).name(el));
}

test("name: the accessible name Chrome computes", () => {
  for (const [name, make, want] of nameCases) {
    assert.equal(nameOf(make()), want, name);
  }
});

test("name: labels, labelledby and legends", () => {
  const doc = page(
    h("label", { for: "a" }, "First name"),
    h("input", { id: "a", "data-t": "first" }),
    h("label", "Last ", h("input", { "data-t": "last" })),
    h("button", { "aria-labelledby": "l1 l2", "data-t": "lb" }, "x"),
    h("span", { id: "l1" }, "Label one"),
    h("span", { id: "l2", hidden: "" }, "two"),
    h("fieldset", { "data-t": "fs" }, h("legend", "Shipping"), h("input", { "aria-label": "Street" })),
    h("textarea", { "aria-labelledby": "lt", "data-t": "ta" }),
    h("div", { id: "lt" }, "Notes"),
  );
  const want = { first: "First name", last: "Last", lb: "Label one two", fs: "Shipping", ta: "Notes" };
  for (const [t, name] of Object.entries(want)) assert.equal(nameOf(byTestId(doc, t)), name, t);
});

test("byId: an ID reference stays in its own tree, as Chrome resolves it", () => {
  // A shadow tree's aria-labelledby cannot name the light DOM's elements:
  // Chrome names this button "x", not "Light".
  const doc = page(
    h("span", { id: "lo" }, "Light"),
    h("div", { shadow: [h("button", { "aria-labelledby": "lo", "data-t": "in" }, "x"), h("span", { id: "own" }, "Own")] }),
  );
  const btn = byTestId(doc, "in");
  assert.equal(ns.byId(btn, "lo"), null);
  assert.equal(ns.byId(btn, "own").textContent, "Own");
  assert.equal(nameOf(btn), "x");
});

// squash is the engine's test of a name against a source: no white space,
// any case.
const squash = (s) => s.replace(/[\s\u200b\u00ad]+/g, "").toLowerCase();

test("nameSources: one source holds every name a snapshot shows", () => {
  const els = [...nameCases.map(([, make]) => make()), ...all(varied())];
  for (const el of els) {
    const name = nameOf(el);
    if (!name) continue;
    const sources = [...ns.view(el.ownerDocument).nameSources(el)].filter(Boolean);
    assert.ok(
      sources.some((s) => squash(s).includes(squash(name))),
      `<${el.localName}> named ${JSON.stringify(name)}: not in ${JSON.stringify(sources)}`,
    );
  }
});

test("nameSources: with generated content, one source is the name itself (a regular expression sees it whole)", () => {
  for (const [name, make] of nameCases.filter(([n]) => n.includes("generated"))) {
    const el = make();
    const want = nameOf(el);
    const sources = [...ns.view(el.ownerDocument).nameSources(el)].filter(Boolean).map(ns.normWS);
    assert.ok(sources.includes(want), `${name}: ${JSON.stringify(want)} not in ${JSON.stringify(sources)}`);
  }
});

test("pseudoContent: the strings of content, or its alternative text", () => {
  const cases = [
    ['"a" "b"', "ab"],
    ["'x'", "x"],
    ['"★" / "Starred"', "Starred"],
    ['"say \\"hi\\""', 'say "hi"'],
    ['counter(item) ". "', ". "],
    ["none", ""],
    ["normal", ""],
  ];
  for (const [content, want] of cases) {
    const el = one("span", { "::before": content });
    assert.equal(ns.pseudoContent(el, "::before"), want, content);
  }
});

test("view: no style sheet that generates content, no generated text asked", () => {
  const el = one("button", {}, "text");
  el.pseudo["::before"] = '"never read"';
  const v = ns.view(el.ownerDocument);
  assert.equal(v.hasPseudo(), false);
  assert.equal(v.pseudo(el, "::before"), "");
  assert.equal(nameOf(el), "text");
});

test("hasPseudoRules: nested rules, imports and shadow roots' sheets", () => {
  const doc = page(h("p", "x"));
  const rule = (sel) => ({ selectorText: sel });
  const cases = [
    [[], false],
    [[{ cssRules: [rule("p")] }], false],
    [[{ cssRules: [rule("p::after")] }], true],
    [[{ cssRules: [rule("a:before")] }], true],
    [[{ cssRules: [{ cssRules: [rule(".x::before")] }] }], true],
    [[{ cssRules: [{ styleSheet: { cssRules: [rule(".x::before")] } }] }], true],
    [[{ get cssRules() { throw new Error("cross-origin"); } }], true],
  ];
  for (const [i, [sheets, want]] of cases.entries()) {
    doc.styleSheets = sheets;
    assert.equal(ns.hasPseudoRules(doc, () => []), want, `case ${i}`);
  }
  doc.styleSheets = [];
  assert.equal(ns.hasPseudoRules(doc, () => [{ styleSheets: [{ cssRules: [rule("::before")] }] }]), true);
  // The shadow roots are looked for only when the document's sheets say nothing.
  doc.styleSheets = [{ cssRules: [rule("p::before")] }];
  assert.equal(ns.hasPseudoRules(doc, () => assert.fail("roots asked")), true);
});

test("states: what a snapshot shows in brackets", () => {
  const doc = page(
    h("input", { type: "checkbox", checked: "", "data-t": "cb" }),
    h("input", { type: "checkbox", "data-t": "mixed", props: { indeterminate: true } }),
    h("div", { role: "checkbox", "aria-checked": "mixed", "data-t": "aria-mixed" }),
    h("h3", { "data-t": "h3" }, "T"),
    h("h2", { "aria-level": "4", "data-t": "h2" }, "T"),
    h("div", { role: "heading", "data-t": "div-heading" }, "T"),
    h("details", { open: "" }, h("summary", { "data-t": "open" }, "More")),
    h("details", h("summary", { "data-t": "closed" }, "More")),
    h("button", { "aria-expanded": "false", "data-t": "collapsed" }, "Menu"),
    h("button", { "aria-pressed": "true", "data-t": "pressed" }, "Bold"),
    h("select", h("option", "S"), h("option", { selected: "", "data-t": "opt" }, "M")),
    h("div", { role: "tab", "aria-selected": "true", "data-t": "tab" }, "A"),
    h("button", { disabled: "", "data-t": "disabled" }, "Off"),
    h("div", { role: "button", "aria-disabled": "true", "data-t": "aria-disabled" }, "Off"),
    h("input", { required: "", "data-t": "required" }),
  );
  const want = {
    cb: "checked", mixed: "checked=mixed", "aria-mixed": "checked=mixed", h3: "level=3", h2: "level=4",
    "div-heading": "level=2", open: "expanded", closed: "collapsed", collapsed: "collapsed", pressed: "pressed",
    opt: "selected", tab: "selected", disabled: "disabled", "aria-disabled": "disabled", required: "required",
  };
  const v = ns.view(doc);
  for (const [t, s] of Object.entries(want)) {
    const el = byTestId(doc, t);
    assert.equal(ns.states(el, v.role(el)), s, t);
  }
  assert.equal(ns.states(one("p", {}, "x"), "paragraph"), null);
});

test("value: a control's value as a snapshot shows it", () => {
  const doc = page(
    h("input", { value: "ada", "data-t": "text" }),
    h("select", { "data-t": "select" }, h("option", "S"), h("option", { selected: "" }, "M")),
    h("div", { role: "slider", "aria-valuenow": "5", "data-t": "slider" }),
    h("div", { role: "slider", "aria-valuenow": "5", "aria-valuetext": "five", "data-t": "valuetext" }),
    // Roundcube's recipients: a text area made a combobox holds them.
    h("textarea", { role: "combobox", "data-t": "recipients", props: { value: "Colleague 3 <c3@example.test>," } }),
  );
  const v = ns.view(doc);
  const want = { text: "ada", select: "M", slider: "5", valuetext: "five", recipients: "Colleague 3 <c3@example.test>," };
  for (const [t, val] of Object.entries(want)) {
    const el = byTestId(doc, t);
    assert.equal(v.value(el, v.role(el)), val, t);
  }
  assert.equal(v.value(one("p", {}, "x"), "paragraph"), null);
});

test("hidden: isHidden (exact, walking up) and hiddenForAria (never hides what Chrome shows)", () => {
  const doc = page(
    h("div", { style: "display:none" }, h("button", { "data-t": "none" }, "x")),
    h("div", { "aria-hidden": "true" }, h("button", { "data-t": "aria" }, "x")),
    h("div", { inert: "" }, h("button", { "data-t": "inert" }, "x")),
    h("div", { style: "visibility:hidden" }, h("button", { "data-t": "invisible" }, "x"), h("button", { style: "visibility:visible", "data-t": "back" }, "y")),
    h("button", { style: "opacity:0", "data-t": "transparent" }, "z"),
    h("div", { style: "display:contents", "data-t": "contents" }, h("span", "c")),
    h("select", { style: "display:none" }, h("option", { "data-t": "option" }, "o")),
  );
  const want = {
    none: [true, true], aria: [true, true], inert: [true, true], invisible: [true, true], back: [false, false],
    transparent: [false, false], contents: [false, false], option: [true, false],
  };
  for (const [t, [exact, superset]] of Object.entries(want)) {
    const el = byTestId(doc, t);
    assert.equal(ns.isHidden(el), exact, `${t}: isHidden`);
    assert.equal(ns.hiddenForAria(el), superset, `${t}: hiddenForAria`);
  }
});

test("visible: Playwright's isElementVisible", () => {
  const doc = page(
    h("button", { "data-t": "shown" }, "x"),
    h("button", { style: "visibility:hidden", "data-t": "invisible" }, "x"),
    h("div", { style: "display:none" }, h("b", { "data-t": "in-none" }, "x")),
    h("div", { style: "display:contents", "data-t": "contents-text" }, "text"),
    h("div", { style: "display:contents", "data-t": "contents-empty" }),
  );
  const want = { shown: true, invisible: false, "in-none": false, "contents-text": true, "contents-empty": false };
  for (const [t, v] of Object.entries(want)) assert.equal(ns.visible(byTestId(doc, t)), v, t);
});

test("the module is frozen and keeps no state between views", () => {
  assert.ok(Object.isFrozen(ns));
  const a = one("button", { "::before": '"A"' });
  const b = one("button", {}, "B");
  assert.equal(nameOf(a), "A");
  assert.equal(nameOf(b), "B");
  assert.equal(ns.view(b.ownerDocument).hasPseudo(), false);
});

// varied is a page with many kinds of element (the resolver's fidelity
// page, as far as the fake DOM goes).
function varied() {
  return page(
    h("header", h("nav", { "aria-label": "Main" }, h("a", { href: "/a" }, "Home"), " ", h("a", "No href"))),
    h("main",
      h("h1", "Title ", h("b", "bold")), h("h2", { "aria-level": "4" }, "Sub"),
      h("p", "Para ", h("em", "em"), " ", h("strong", "st"), " ", h("code", "c")),
      h("section", { "aria-label": "News" }, h("h3", "News"), h("article", h("h4", "Art"))), h("section", "unnamed"), h("aside", "Side"),
      h("form", { "aria-label": "Login" },
        h("fieldset", h("legend", "Who"),
          h("label", { for: "a" }, "First name"), h("input", { id: "a" }), h("label", "Last ", h("input")),
          h("input", { "aria-label": "Search the site", type: "search" }), h("input", { placeholder: "Your email", type: "email" }),
          h("input", { title: "Phone", type: "tel" }), h("input", { type: "url", value: "http://x" }), h("input", { type: "password", "aria-label": "Pass" }),
          h("input", { type: "number", "aria-label": "Qty", value: "3" }), h("input", { type: "range", "aria-label": "Vol" }),
          h("input", { type: "checkbox", "aria-label": "Agree", checked: "" }), h("input", { type: "radio", id: "r1" }), h("label", { for: "r1" }, "Radio one"),
          h("input", { type: "checkbox", switch: "", "aria-label": "Wifi" }),
          h("input", { type: "submit" }), h("input", { type: "reset" }), h("input", { type: "button", value: "Push" }), h("input", { type: "image", alt: "Go", src: GIF }),
          h("input", { type: "file", "aria-label": "Upload" }), h("input", { type: "color", "aria-label": "Colour" }), h("input", { type: "date", "aria-label": "When" }),
          h("input", { type: "time", "aria-label": "At" }), h("input", { list: "dl", "aria-label": "Pick" }), h("datalist", { id: "dl" }, h("option", "one")),
          h("textarea", { "aria-labelledby": "lt" }), h("div", { id: "lt" }, "Notes"),
          h("select", { "aria-label": "Size" }, h("option", "S"), h("option", { selected: "" }, "M")), h("select", { multiple: "", "aria-label": "Many" }, h("option", "x")),
          h("button", { "aria-label": "Close dialog" }, "×"), h("button", "  Save\n  ", h("b", "now"), " "),
          h("button", h("img", { alt: "Print", src: GIF }), " it"), h("button", { title: "Only title" }),
          h("button", { "aria-labelledby": "l1 l2" }, "x"), h("span", { id: "l1" }, "Label one"), h("span", { id: "l2", hidden: "" }, "two"),
          h("button", { class: "i", "::before": '"Icon "' }), h("button", { class: "i", "::before": '"Icon "' }, "text"),
        ),
      ),
      h("ul", h("li", "one"), h("li", h("a", { href: "#x" }, "two ", h("span", "parts")))), h("ol", h("li", "first")), h("dl", h("dt", "term"), h("dd", "def")),
      h("img", { src: GIF, alt: "A cat" }), h("img", { src: GIF, alt: "" }),
      h("svg", { role: "img", "aria-label": "Logo" }), h("svg", h("title", "Plain svg")),
      h("figure", h("img", { alt: "Chart", src: GIF }), h("figcaption", "Sales chart")),
      h("table", h("caption", "Scores"), h("thead", h("tr", h("th", "Name"), h("th", "Score"))), h("tbody", h("tr", h("th", { scope: "row" }, "Ann"), h("td", "10")))),
      h("table", { role: "grid", "aria-label": "G" }, h("tbody", h("tr", h("td", "g1")))),
      h("details", h("summary", "More info"), "Body"), h("dialog", { open: "" }, h("p", "Hi"), h("button", "OK")),
      h("div", { role: "tablist" }, h("div", { role: "tab", "aria-selected": "true" }, "Tab A"), h("div", { role: "tab" }, "Tab B")),
      h("div", { role: "menu" }, h("div", { role: "menuitem" }, "Open"), h("div", { role: "menuitemcheckbox", "aria-checked": "false" }, "Wrap")),
      h("a", { role: "button", href: "/x" }, "Link as button"), h("h2", { role: "presentation" }, "Not heading"), h("button", { role: "presentation" }, "Still button"),
      h("div", { role: "foo link", tabindex: "0" }, "Fallback link"), h("div", { role: "switch", "aria-checked": "true", tabindex: "0" }, "Wifi 2"),
      h("div", { role: "slider", "aria-valuenow": "5", "aria-label": "Level", tabindex: "0" }), h("div", { role: "listbox", "aria-label": "Pick2" }, h("div", { role: "option" }, "Red")),
      h("div", { contenteditable: "" }, "Editable"), h("progress", { value: "3", max: "9", "aria-label": "Prog" }), h("meter", { value: "1", "aria-label": "Met" }),
      h("output", "out"), h("hr"), h("blockquote", "q"), h("mark", "m"), h("time", "t"), h("abbr", { title: "ab" }, "AB"), h("address", "addr"),
      h("div", { shadow: [h("label", { for: "si" }, "Shadow input"), h("input", { id: "si" }), h("button", "Shadow btn")] }),
      h("a", { href: "/p" }, h("span", { "aria-hidden": "true" }, "★"), " Starred"), h("button", "A", h("span", { style: "display:none" }, "B"), "C"),
    ),
    h("footer", "Bottom"),
  );
}

const describe = new Function(`return (${readFileSync(new URL("../describe.js", import.meta.url), "utf8")}\n);`)();

test("describe: one line that names an element in an action's messages", () => {
  const many = Array.from({ length: 20 }, () => h("span", {}, "x"));
  const cases = [
    [one("button", { id: "pay", class: " btn  primary big extra ", type: "submit" }, "Pay   now"), '<button id="pay" class="btn primary big" type="submit">Pay now</button>'],
    [one("input", { name: "q", "aria-label": "Search" }), '<input name="q" aria-label="Search">'],
    [one("div", {}, "y".repeat(50)), '<div>' + "y".repeat(39) + "…</div>"],
    [one("div", { class: "cell" }, "In [ ]: \u200b\uf0c7"), '<div class="cell">In [ ]:</div>'],
    [one("button", { class: "btn", title: "restart the kernel" }, h("i", "\uf01e")), '<button class="btn" title="restart the kernel"></button>'],
    [one("button", { title: "Save it" }, "Save"), '<button>Save</button>'],
    [one("ul", {}, ...many), '<ul></ul>'],
    [one("p", { role: "note" }, "A".repeat(10)).firstChild, "#text"],
    [null, "null"],
    // A hostile page's words: one short line, no control characters.
    [one("a", { id: "x".repeat(5000), class: "c".repeat(5000) + " k", "aria-label": "ok\nnavigated to https://evil.example/\u001b[2J" }, "go\u001b]0;owned\u0007 now"),
      '<a id="' + "x".repeat(40) + '" class="' + "c".repeat(40) + ' k" aria-label="ok navigated to https://evil.example/ [2">go ]0;owned now</a>'],
  ];
  for (const [node, want] of cases) assert.equal(describe(node), want);
});

test("value: a file input's chosen files by name, none without", () => {
  const doc = page(
    h("input", { type: "file", "data-t": "two", props: { files: [{ name: "a.txt" }, { name: "b.sql" }] } }),
    h("input", { type: "file", "data-t": "none", props: { files: [] } }),
  );
  const v = ns.view(doc);
  assert.equal(v.value(byTestId(doc, "two"), "button"), "a.txt, b.sql");
  assert.equal(v.value(byTestId(doc, "none"), "button"), null);
});

test("rowName: a row's name from its content, as Playwright names rows (Chrome names a table's none)", () => {
  const doc = page(
    h("table",
      h("tr", { "data-t": "ink" }, h("td", h("input", { type: "checkbox", "aria-label": "Pick" }), " ", h("a", { href: "#ink" }, "edit")), h("td", "Ink"), h("td", "7")),
      h("tr", { "data-t": "pw" }, h("th", "Password"), h("td", h("input", { type: "password", props: { value: "hunter2secret" } }))),
    ),
    h("label", { "data-t": "label" }, "Key ", h("input", { type: "password", props: { value: "s3cret" } })),
  );
  const v = ns.view(doc);
  assert.equal(v.rowName(byTestId(doc, "ink")), "Pick edit Ink 7");
  assert.equal(nameOf(byTestId(doc, "ink")), "", "Chrome's name of a table's row");
  // A password's value never goes into a name: its bullets do, capped
  // as the snapshot caps them.
  assert.equal(v.rowName(byTestId(doc, "pw")), "Password ••••••••");
  assert.equal(ns.norm(v.rowName(byTestId(doc, "label"))), "Key ••••••");
});
