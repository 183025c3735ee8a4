// The words the emulator's last_error starts with when it had no endpoint to deliver to
// (docs/emulator.md, "Webhooks"): `smoke` reads them to tell "nowhere to deliver" from
// "delivered and refused".
export const NO_ENDPOINT = 'no webhook endpoint configured';

/** Whether an event's last error says there was no endpoint, rather than that one failed. */
export function noEndpoint(lastError: string | null | undefined): boolean {
  return typeof lastError === 'string' && lastError.startsWith(NO_ENDPOINT);
}
