// The timeouts of every package's suite: a test waits for the event it expects and its timeout is the only clock,
// so these are generous — a slow or busy machine makes the suite slower, not red. CYRNEL_TEST_TIME_SCALE multiplies
// them (and the explicit per-test timeouts that are longer, through `scaled`) for a machine slower still.
const scale = Math.max(1, Number(process.env.CYRNEL_TEST_TIME_SCALE ?? 1) || 1);

/** `ms` times CYRNEL_TEST_TIME_SCALE. */
export const scaled = (ms) => Math.round(ms * scale);

export const timeouts = {
  testTimeout: scaled(120_000),
  hookTimeout: scaled(180_000),
  // expect.poll's own default is one second: far too short for a host under load to reach the state polled for.
  expect: { poll: { timeout: scaled(60_000), interval: 50 } },
};
