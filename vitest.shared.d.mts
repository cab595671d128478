/** `ms` times CYRNEL_TEST_TIME_SCALE. */
export declare const scaled: (ms: number) => number;
export declare const timeouts: {
  testTimeout: number;
  hookTimeout: number;
  expect: { poll: { timeout: number; interval: number } };
};
