// Tab groups through chrome.tabGroups: the groups.* ops the service's spaces use (PROTOCOL.md §2.1).
// A space is a tab group; its title and colour are the record the service rebuilds spaces from.

import { Code, WireError, classifyChromeError, messageOf } from "./errors.js";

/** toGroup converts a chrome.tabGroups.TabGroup to the wire's Group. */
export function toGroup(g) {
  return { id: g.id, title: g.title ?? "", color: g.color ?? "grey", windowId: g.windowId };
}

/** GroupOps implements the groups.* ops over chrome.tabs and chrome.tabGroups (or fakes of them). */
export class GroupOps {
  constructor({ tabs, tabGroups }) {
    this.tabs = tabs;
    this.tabGroups = tabGroups;
  }

  /** add puts tabIds into groupId (a new group when absent) and sets the title and colour given. */
  async add({ tabIds, groupId, title, color }) {
    const options = { tabIds };
    if (groupId !== undefined) {
      options.groupId = groupId;
    } else {
      // A new group goes to the "current" window unless told: keep it in its first tab's window.
      const first = await call(tabIds, () => this.tabs.get(tabIds[0]));
      options.createProperties = { windowId: first.windowId };
    }
    const id = await call(tabIds, () => this.tabs.group(options));
    if (title !== undefined || color !== undefined) await this.update({ groupId: id, title, color });
    return { groupId: id };
  }

  async update({ groupId, title, color }) {
    const props = {};
    if (title !== undefined) props.title = title;
    if (color !== undefined) props.color = color;
    const g = await call(undefined, () => this.tabGroups.update(groupId, props));
    return { group: toGroup(g) };
  }

  async list() {
    const groups = await call(undefined, () => this.tabGroups.query({}));
    return { groups: groups.map(toGroup) };
  }
}

// call runs one chrome call and maps "No tab with id" to no_tab, anything else to internal.
async function call(tabIds, fn) {
  try {
    return await fn();
  } catch (err) {
    const message = messageOf(err);
    if (classifyChromeError(message).kind === "no_tab") throw new WireError(Code.noTab, `${message} (tabs ${tabIds})`);
    throw new WireError(Code.internal, message);
  }
}
