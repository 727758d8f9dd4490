// WCAG AA colour contrast of the popup (issue 26), computed from popup.css's custom properties in
// light and dark: text 4.5:1, the graphics that tell a state or mark a field 3:1. The tables below
// say which colours meet which; the test also fails on a colour popup.css uses that no table names,
// so a new one gets checked too.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const css = readFileSync(new URL("../popup.css", import.meta.url), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");

// Text colours and the backgrounds each is shown on.
const TEXT = {
  "--fg": ["--bg", "--bg-soft", "--bg-hover", "--warn-bg", "--error-bg", "--mark"],
  "--muted": ["--bg", "--bg-soft", "--bg-hover", "--warn-bg"],
  "--accent": ["--bg", "--bg-soft", "--bg-hover"],
  "--accent-fg": ["--accent"],
  "--red": ["--bg", "--bg-soft", "--bg-hover"],
  "--amber": ["--bg", "--warn-bg"],
  "--amber-fg": ["--amber"],
  "--green": ["--bg"],
  "--bg": ["--fg"], // the toast
};

// Graphics a person needs to see (WCAG 1.4.11): status dots, the switch's track, a text field's
// edge, the focus ring, a pairing request's frame.
const GRAPHICS = {
  "--green": ["--bg", "--bg-soft"],
  "--amber": ["--bg"],
  "--red": ["--bg", "--bg-soft"],
  "--grey": ["--bg"],
  "--field-line": ["--bg"],
  "--accent": ["--bg"],
};

// Colours no contrast rule applies to, and why.
const EXEMPT = {
  "--line": "separators between rows and the borders of buttons, which their labels identify",
  "--error-bg": "a background (checked under the text on it)",
  "--warn-bg": "a background (checked under the text on it)",
  "--mark": "a background (checked under the text on it)",
  "--bg-hover": "a background (checked under the text on it)",
  "--bg-soft": "a background (checked under the text on it)",
  "#fff": "the switch's knob, on its track: the label says on or stopped",
  "#1a73e8": "Chrome's tab group colours (swatches): the group's title says which",
  "#d93025": "swatch",
  "#f9ab00": "swatch",
  "#188038": "swatch",
  "#d01884": "swatch",
  "#a142f4": "swatch",
  "#007b83": "swatch",
  "#fa903e": "swatch",
};

function properties(block) {
  const out = {};
  for (const m of block.matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)) out[m[1]] = m[2].trim();
  return out;
}

function schemes() {
  const dark = /@media\s*\(prefers-color-scheme:\s*dark\)\s*\{\s*:root\s*\{([^}]*)\}\s*\}/.exec(css);
  const light = /(?:^|\})\s*:root\s*\{([^}]*)\}/.exec(css);
  assert.ok(light && dark, "popup.css has a :root block and a dark one");
  const l = properties(light[1]);
  return { light: l, dark: { ...l, ...properties(dark[1]) }, darkOwn: properties(dark[1]) };
}

// rules are popup.css's rules outside the colour definitions: [selector, declarations].
function rules() {
  const body = css.replace(/@media\s*\(prefers-color-scheme:\s*dark\)\s*\{\s*:root\s*\{[^}]*\}\s*\}/, "").replace(/(?:^|\})\s*:root\s*\{[^}]*\}/, "}");
  return [...body.matchAll(/([^{}]+)\{([^{}]*)\}/g)].map((m) => [m[1].trim(), m[2]]);
}

function luminance(hex) {
  const h = hex.replace("#", "");
  const full = h.length === 3 ? [...h].map((c) => c + c).join("") : h;
  assert.match(full, /^[0-9a-f]{6}$/i, `a colour as #rgb or #rrggbb: ${hex}`);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const v = Number.parseInt(full.slice(i, i + 2), 16) / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** ratio is WCAG's contrast ratio of two colours. */
export function ratio(a, b) {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

test("ratio is WCAG's: black on white 21, the old amber #d29922 on white 2.5", () => {
  assert.equal(ratio("#000", "#fff").toFixed(1), "21.0");
  assert.equal(ratio("#d29922", "#ffffff").toFixed(1), "2.5");
  assert.equal(ratio("#777", "#fff").toFixed(2), "4.48");
});

test("every text colour meets 4.5:1 and every graphic 3:1 on what it is shown on, light and dark", () => {
  const problems = [];
  for (const [scheme, vars] of Object.entries(schemes()).filter(([k]) => k !== "darkOwn")) {
    for (const [table, min] of [
      [TEXT, 4.5],
      [GRAPHICS, 3],
    ]) {
      for (const [fg, backgrounds] of Object.entries(table)) {
        for (const bg of backgrounds) {
          if (!vars[fg] || !vars[bg]) {
            problems.push(`${scheme}: ${vars[fg] ? bg : fg} is not defined`);
            continue;
          }
          const r = ratio(vars[fg], vars[bg]);
          if (r < min) problems.push(`${scheme}: ${fg} ${vars[fg]} on ${bg} ${vars[bg]} is ${r.toFixed(2)}:1, want ${min}:1`);
        }
      }
    }
  }
  assert.deepEqual(problems, []);
});

test("dark mode sets every colour light mode sets", () => {
  const { light, darkOwn } = schemes();
  assert.deepEqual(Object.keys(darkOwn).sort(), Object.keys(light).sort());
});

test("every colour popup.css uses is checked (or exempt, with a reason)", () => {
  const known = new Set([...Object.keys(TEXT), ...Object.values(TEXT).flat(), ...Object.keys(GRAPHICS), ...Object.values(GRAPHICS).flat(), ...Object.keys(EXEMPT)]);
  const unknown = [];
  for (const [selector, decls] of rules()) {
    for (const m of decls.matchAll(/([\w-]+)\s*:\s*([^;]+)/g)) {
      const [, prop, value] = m;
      if (prop.startsWith("--")) continue;
      for (const c of value.matchAll(/var\((--[\w-]+)\)|#[0-9a-f]{3,8}\b/gi)) {
        const name = c[1] ?? c[0].toLowerCase();
        if (!known.has(name)) unknown.push(`${selector} { ${prop}: ${value.trim()} }`);
      }
      // A text colour must be one the TEXT table checks.
      if (prop === "color") {
        const v = /var\((--[\w-]+)\)/.exec(value)?.[1];
        if (!["inherit", "transparent"].includes(value.trim()) && !(v && TEXT[v])) unknown.push(`${selector} { color: ${value.trim()} }: not in TEXT`);
      }
    }
  }
  assert.deepEqual(unknown, []);
});

test("nothing is faded below its contrast but a disabled control", () => {
  const faded = rules()
    .filter(([selector, decls]) => /(^|[;\s])opacity\s*:\s*0?\.\d/.test(decls) && !/:disabled$/.test(selector))
    .map(([selector]) => selector);
  assert.deepEqual(faded, []);
});
