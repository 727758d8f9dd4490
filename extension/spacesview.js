// The popup's list of the agents' spaces (a first version): each space with its agent, task, tabs
// and state, and a Take over / Hand back button. It talks to the service over the popup channel
// (chrome.runtime.sendMessage({type: "service.call", …}), PROTOCOL.md §2.6), as the person.

/** STATE_LABELS says who is in control of a space, for people. */
export const STATE_LABELS = Object.freeze({ working: "agent working", person: "you have it", idle: "agent idle" });

/**
 * spaceRows turns a spaces.list result into what the view shows: one row per space with the
 * button's label and the method it calls (the person takes a working or idle space over, hands
 * a taken-over one back).
 */
export function spaceRows(result) {
  const spaces = Array.isArray(result?.spaces) ? result.spaces : [];
  return spaces.map((sp) => {
    const taken = sp.state === "person";
    const tabs = Array.isArray(sp.tabs) ? sp.tabs.length : 0;
    return {
      id: String(sp.id ?? ""),
      title: `${sp.agent ?? "?"}${sp.task ? ": " + sp.task : ""}`,
      detail: `${STATE_LABELS[sp.state] ?? sp.state ?? ""} · ${tabs} tab${tabs === 1 ? "" : "s"}`,
      color: sp.color ?? "grey",
      state: sp.state ?? "",
      button: taken ? "Hand back" : "Take over",
      method: taken ? "spaces.handBack" : "spaces.takeOver",
    };
  });
}

/** SpacesView renders the rows into a list element and runs the buttons through call(method, params). */
export class SpacesView {
  constructor({ doc, list, empty, error, call }) {
    Object.assign(this, { doc, list, empty, error, call });
  }

  async refresh() {
    const answer = await this.call("spaces.list", { all: true });
    if (answer?.error) {
      this.#showError(answer.error.message ?? String(answer.error));
      return;
    }
    this.#showError("");
    this.render(spaceRows(answer?.result));
  }

  render(rows) {
    this.list.replaceChildren(
      ...rows.map((row) => {
        const li = this.doc.createElement("li");
        li.dataset.space = row.id;
        li.dataset.state = row.state;
        const swatch = this.doc.createElement("span");
        swatch.className = `swatch ${row.color}`;
        const text = this.doc.createElement("span");
        text.className = "space-text";
        text.textContent = `${row.id} ${row.title} — ${row.detail}`;
        const button = this.doc.createElement("button");
        button.type = "button";
        button.textContent = row.button;
        button.addEventListener("click", async () => {
          button.disabled = true;
          const answer = await this.call(row.method, { space: row.id });
          if (answer?.error) this.#showError(answer.error.message ?? String(answer.error));
          await this.refresh();
        });
        li.append(swatch, text, button);
        return li;
      }),
    );
    this.empty.hidden = rows.length > 0;
  }

  #showError(message) {
    this.error.textContent = message;
    this.error.hidden = message === "";
  }
}

// In the popup page: mount on its <section id="spaces"> and refresh while it is open.
if (typeof document !== "undefined" && typeof chrome !== "undefined" && document.getElementById("spaces")) {
  const view = new SpacesView({
    doc: document,
    list: document.getElementById("spaces-list"),
    empty: document.getElementById("spaces-none"),
    error: document.getElementById("spaces-error"),
    call: (method, params) => chrome.runtime.sendMessage({ type: "service.call", method, params }),
  });
  view.refresh();
  setInterval(() => view.refresh(), 2000);
}
