// Waking the service worker. Chrome stops an MV3 worker whenever it likes (idle, memory, an update,
// DevTools): its native port closes, the relay exits, and nothing runs until an event the worker
// listens to. A periodic chrome.alarms alarm is that event: whenever it fires, a stopped worker
// starts again and reconnects. Chrome lets an unpacked extension's alarm fire every second and a
// packed (Web Store) one every 30 s at most, so that is the period used for each.

/** ALARM is the name of the wake alarm. */
export const ALARM = "egohost-wake";

/** Periods of the wake alarm, in milliseconds, by install type. */
export const UNPACKED_PERIOD_MS = 1_000;
export const PACKED_PERIOD_MS = 30_000;

/** wakePeriodMs returns the alarm period for chrome.management.getSelf()'s installType. */
export function wakePeriodMs(installType) {
  return installType === "development" ? UNPACKED_PERIOD_MS : PACKED_PERIOD_MS;
}

/**
 * ensureWakeAlarm creates the wake alarm unless it exists with the right period. alarms is
 * chrome.alarms; management is chrome.management (getSelf needs no permission). It resolves the
 * period in use.
 */
export async function ensureWakeAlarm({ alarms, management }) {
  let installType = "";
  try {
    installType = (await management?.getSelf?.())?.installType ?? "";
  } catch {
    installType = ""; // unknown: use the packed period, which Chrome accepts everywhere
  }
  const periodMs = wakePeriodMs(installType);
  const periodInMinutes = periodMs / 60_000;
  const existing = await alarms.get(ALARM);
  if (!existing || existing.periodInMinutes !== periodInMinutes) {
    await alarms.create(ALARM, { delayInMinutes: periodInMinutes, periodInMinutes });
  }
  return periodMs;
}
