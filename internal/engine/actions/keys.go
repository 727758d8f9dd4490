package actions

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// keyDef is one key of the US keyboard layout, as Chrome's
// Input.dispatchKeyEvent wants it.
type keyDef struct {
	key      string // KeyboardEvent.key, e.g. "a", "Enter"
	shiftKey string // key with Shift held ("A", "!"), "" when the same
	code     string // KeyboardEvent.code, e.g. "KeyA"
	keyCode  int64  // windowsVirtualKeyCode
	text     string // text the key types ("" for none)
	location int64  // 1 left, 2 right, 3 numpad
}

// Modifier bits of Input.dispatchKeyEvent and Input.dispatchMouseEvent.
const (
	modAlt     int64 = 1
	modControl int64 = 2
	modMeta    int64 = 4
	modShift   int64 = 8
)

// keyboard is the US layout: every key by its key name, its shifted key
// name and its code.
type keyboard struct {
	byName map[string]keyDef
}

// usKeyboard builds the US layout (Playwright's USKeyboardLayout, trimmed
// to what a person types).
func usKeyboard() *keyboard {
	kb := &keyboard{byName: make(map[string]keyDef, 256)}
	add := func(d keyDef) {
		if d.text == "" && utf8.RuneCountInString(d.key) == 1 {
			d.text = d.key
		}
		for _, n := range []string{d.code, d.key} {
			if _, taken := kb.byName[n]; !taken && n != "" {
				kb.byName[n] = d
			}
		}
		if d.shiftKey != "" {
			if _, taken := kb.byName[d.shiftKey]; !taken {
				kb.byName[d.shiftKey] = d
			}
		}
	}
	for c := 'a'; c <= 'z'; c++ {
		add(keyDef{key: string(c), shiftKey: strings.ToUpper(string(c)), code: "Key" + strings.ToUpper(string(c)), keyCode: int64(c - 'a' + 65)})
	}
	shifted := ")!@#$%^&*("
	for d := '0'; d <= '9'; d++ {
		add(keyDef{key: string(d), shiftKey: string(shifted[d-'0']), code: "Digit" + string(d), keyCode: int64(d)})
	}
	for _, p := range []struct {
		key, shift, code string
		kc               int64
	}{
		{"`", "~", "Backquote", 192}, {"-", "_", "Minus", 189}, {"=", "+", "Equal", 187},
		{"[", "{", "BracketLeft", 219}, {"]", "}", "BracketRight", 221}, {`\`, "|", "Backslash", 220},
		{";", ":", "Semicolon", 186}, {"'", `"`, "Quote", 222}, {",", "<", "Comma", 188},
		{".", ">", "Period", 190}, {"/", "?", "Slash", 191},
	} {
		add(keyDef{key: p.key, shiftKey: p.shift, code: p.code, keyCode: p.kc})
	}
	add(keyDef{key: " ", code: "Space", keyCode: 32})
	add(keyDef{key: "Enter", code: "Enter", keyCode: 13, text: "\r"})
	kb.byName["\n"] = kb.byName["Enter"]
	kb.byName["\r"] = kb.byName["Enter"]
	kb.byName["Space"] = kb.byName[" "]
	for _, n := range []struct {
		key, code string
		kc        int64
		loc       int64
	}{
		{"Tab", "Tab", 9, 0}, {"Backspace", "Backspace", 8, 0}, {"Escape", "Escape", 27, 0},
		{"Delete", "Delete", 46, 0}, {"Insert", "Insert", 45, 0}, {"Home", "Home", 36, 0}, {"End", "End", 35, 0},
		{"PageUp", "PageUp", 33, 0}, {"PageDown", "PageDown", 34, 0},
		{"ArrowLeft", "ArrowLeft", 37, 0}, {"ArrowUp", "ArrowUp", 38, 0}, {"ArrowRight", "ArrowRight", 39, 0}, {"ArrowDown", "ArrowDown", 40, 0},
		{"Shift", "ShiftLeft", 16, 1}, {"Control", "ControlLeft", 17, 1}, {"Alt", "AltLeft", 18, 1}, {"Meta", "MetaLeft", 91, 1},
		{"CapsLock", "CapsLock", 20, 0}, {"ContextMenu", "ContextMenu", 93, 0}, {"Pause", "Pause", 19, 0},
	} {
		add(keyDef{key: n.key, code: n.code, keyCode: n.kc, location: n.loc})
	}
	for i := 1; i <= 12; i++ {
		name := fmt.Sprintf("F%d", i)
		add(keyDef{key: name, code: name, keyCode: int64(111 + i)})
	}
	kb.byName["Tab"] = keyDef{key: "Tab", code: "Tab", keyCode: 9} // no text: Chrome moves focus
	kb.byName["Esc"] = kb.byName["Escape"]
	kb.byName["Ctrl"] = kb.byName["Control"]
	kb.byName["Cmd"] = kb.byName["Meta"]
	kb.byName["Command"] = kb.byName["Meta"]
	kb.byName["Option"] = kb.byName["Alt"]
	return kb
}

// lookup returns the key named name (a key, a shifted key or a code).
func (kb *keyboard) lookup(name string) (keyDef, bool) {
	d, ok := kb.byName[name]
	return d, ok
}

// modifierBit returns the modifier bit of a modifier key name.
func modifierBit(name, goos string) int64 {
	switch name {
	case "Alt", "Option":
		return modAlt
	case "Control", "Ctrl":
		return modControl
	case "Meta", "Cmd", "Command":
		return modMeta
	case "Shift":
		return modShift
	case "ControlOrMeta":
		if goos == "darwin" {
			return modMeta
		}
		return modControl
	}
	return 0
}

// splitCombo splits "Control+Shift+a" into its keys; "Shift++" is Shift
// and "+", and "+" alone is the plus key.
func splitCombo(s string) []string {
	var keys []string
	building := ""
	for _, c := range s {
		if c == '+' && building != "" {
			keys = append(keys, building)
			building = ""
			continue
		}
		building += string(c)
	}
	return append(keys, building)
}

// stroke is one key of a combo, resolved: what to send down and up.
type stroke struct {
	def      keyDef
	key      string // with Shift applied
	text     string // "" when a modifier other than Shift is held
	modifier int64  // this key's own modifier bit (0 for others)
}

// parseCombo resolves a combo ("Control+a", "Shift+Tab", "ControlOrMeta+a",
// "Enter", "A") into its strokes, modifiers first.
func (kb *keyboard) parseCombo(combo, goos string) ([]stroke, error) {
	if combo == "" {
		return nil, invalid("press: empty key")
	}
	parts := splitCombo(combo)
	var mods int64
	strokes := make([]stroke, 0, len(parts))
	for i, p := range parts {
		name := p
		if name == "ControlOrMeta" {
			if goos == "darwin" {
				name = "Meta"
			} else {
				name = "Control"
			}
		}
		if p == "" {
			return nil, invalid("press %q: empty key in the combo", combo)
		}
		d, ok := kb.lookup(name)
		if !ok {
			return nil, invalid("press %q: unknown key %q (keys are named as KeyboardEvent.key or .code: a, A, Enter, Tab, ArrowLeft, KeyA, Digit1, F5, Control, Shift, Alt, Meta, ControlOrMeta)", combo, p)
		}
		bit := modifierBit(name, goos)
		if bit == 0 && i < len(parts)-1 {
			return nil, invalid("press %q: %q is not a modifier (Shift, Control, Alt, Meta, ControlOrMeta)", combo, p)
		}
		strokes = append(strokes, stroke{def: d, key: d.key, text: d.text, modifier: bit})
		mods |= bit
	}
	// Shift changes the last key's name and text; another modifier means no
	// text at all (Control+a selects, it does not type "a").
	last := &strokes[len(strokes)-1]
	if last.modifier == 0 {
		if mods&modShift != 0 && last.def.shiftKey != "" {
			last.key = last.def.shiftKey
			last.text = last.def.shiftKey
		} else if last.def.shiftKey != "" && parts[len(parts)-1] == last.def.shiftKey {
			// "A" or "!" named directly: the shifted key, typed as is.
			last.key = last.def.shiftKey
			last.text = last.def.shiftKey
		}
		if mods&^modShift != 0 {
			last.text = ""
		}
	}
	return strokes, nil
}

// macCommands are the editing commands Chrome on macOS needs with a key
// event (it takes them from the OS otherwise), keyed by modifiers+code.
func macCommands(mods int64, code string) []string {
	switch mods {
	case 0:
		switch code {
		case "Backspace":
			return []string{"deleteBackward"}
		case "Delete":
			return []string{"deleteForward"}
		case "ArrowLeft":
			return []string{"moveLeft"}
		case "ArrowRight":
			return []string{"moveRight"}
		case "ArrowUp":
			return []string{"moveUp"}
		case "ArrowDown":
			return []string{"moveDown"}
		case "Home":
			return []string{"scrollToBeginningOfDocument"}
		case "End":
			return []string{"scrollToEndOfDocument"}
		}
	case modMeta:
		switch code {
		case "KeyA":
			return []string{"selectAll"}
		case "KeyC":
			return []string{"copy"}
		case "KeyX":
			return []string{"cut"}
		case "KeyV":
			return []string{"paste"}
		case "KeyZ":
			return []string{"undo"}
		case "ArrowLeft":
			return []string{"moveToLeftEndOfLine"}
		case "ArrowRight":
			return []string{"moveToRightEndOfLine"}
		case "Backspace":
			return []string{"deleteToBeginningOfLine"}
		}
	case modMeta | modShift:
		switch code {
		case "KeyZ":
			return []string{"redo"}
		case "ArrowLeft":
			return []string{"moveToLeftEndOfLineAndModifySelection"}
		case "ArrowRight":
			return []string{"moveToRightEndOfLineAndModifySelection"}
		}
	case modShift:
		switch code {
		case "ArrowLeft":
			return []string{"moveLeftAndModifySelection"}
		case "ArrowRight":
			return []string{"moveRightAndModifySelection"}
		}
	case modAlt:
		switch code {
		case "Backspace":
			return []string{"deleteWordBackward"}
		case "ArrowLeft":
			return []string{"moveWordLeft"}
		case "ArrowRight":
			return []string{"moveWordRight"}
		}
	}
	return nil
}
