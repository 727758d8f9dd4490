// mutation returns the settle's test of a DOM mutation record (observe.js,
// quiet.js): does it count as the page's activity? Every record does but
// one that changes only how an element's inline style moves or paints it:
// a script's animation writes the style attribute every frame (jQuery's
// bounce and shake effects move an element by its top or left for
// seconds), and a full or interactive snapshot after the settle reads
// none of it, as the observer sees nothing of a CSS animation doing the
// same. (A viewport snapshot keeps elements by where they are: one taken
// while a script still moves an element reads where it is then, as it
// would during a CSS animation.) A style change counts when it touches
// what shows or hides an element or what the snapshot reads of its style:
// display, visibility, content-visibility, clip-path and clip, cursor,
// and the opacity, width and height that a fade or a slide animates
// before it hides the element.
() => {
  const SHOWN = [
    "display", "visibility", "content-visibility", "clip-path", "clip", "cursor", "opacity",
    "width", "height", "max-width", "max-height",
  ];
  let before = null; // a detached element to parse the old inline style
  return (r) => {
    const el = r.target;
    if (r.type !== "attributes" || r.attributeName !== "style" || !el.style || !el.ownerDocument) return true;
    if (!before || before.ownerDocument !== el.ownerDocument) before = el.ownerDocument.createElement("div");
    before.setAttribute("style", r.oldValue || "");
    return SHOWN.some((p) => before.style.getPropertyValue(p) !== el.style.getPropertyValue(p));
  };
}
