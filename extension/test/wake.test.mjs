import assert from "node:assert/strict";
import { test } from "node:test";
import { ALARM, PACKED_PERIOD_MS, UNPACKED_PERIOD_MS, ensureWakeAlarm, wakePeriodMs } from "../wake.js";

// A fake chrome.alarms: alarms by name, create replaces.
function fakeAlarms(initial = []) {
  const a = {
    byName: new Map(initial.map((x) => [x.name, x])),
    created: [],
    async get(name) {
      return a.byName.get(name);
    },
    async create(name, info) {
      a.created.push([name, info]);
      a.byName.set(name, { name, periodInMinutes: info.periodInMinutes, scheduledTime: 0 });
    },
  };
  return a;
}

test("the wake period is 1 s unpacked (Chrome's minimum for development installs) and 30 s otherwise", () => {
  assert.equal(wakePeriodMs("development"), UNPACKED_PERIOD_MS);
  assert.equal(UNPACKED_PERIOD_MS, 1000);
  for (const t of ["normal", "admin", "sideload", "other", "", undefined]) assert.equal(wakePeriodMs(t), PACKED_PERIOD_MS, String(t));
  assert.equal(PACKED_PERIOD_MS, 30000);
});

test("ensureWakeAlarm creates the periodic alarm when it is missing", async () => {
  const alarms = fakeAlarms();
  const got = await ensureWakeAlarm({ alarms, management: { getSelf: async () => ({ installType: "development" }) } });
  assert.equal(got, 1000);
  assert.deepEqual(alarms.created, [[ALARM, { delayInMinutes: 1 / 60, periodInMinutes: 1 / 60 }]]);
});

test("ensureWakeAlarm keeps an alarm that already has the right period, and replaces one with another", async () => {
  const management = { getSelf: async () => ({ installType: "normal" }) };
  const right = fakeAlarms([{ name: ALARM, periodInMinutes: 0.5 }]);
  await ensureWakeAlarm({ alarms: right, management });
  assert.deepEqual(right.created, [], "a worker restart must not push the next wake further away");
  const wrong = fakeAlarms([{ name: ALARM, periodInMinutes: 1 / 60 }]);
  await ensureWakeAlarm({ alarms: wrong, management });
  assert.deepEqual(wrong.created, [[ALARM, { delayInMinutes: 0.5, periodInMinutes: 0.5 }]]);
});

test("ensureWakeAlarm falls back to the packed period when the install type cannot be read", async () => {
  for (const management of [undefined, {}, { getSelf: async () => { throw new Error("nope"); } }]) {
    const alarms = fakeAlarms();
    assert.equal(await ensureWakeAlarm({ alarms, management }), 30000);
    assert.deepEqual(alarms.created, [[ALARM, { delayInMinutes: 0.5, periodInMinutes: 0.5 }]]);
  }
});
