// The little of Node's `process` that jszmq's dependencies (util, assert) touch in a browser.
export const process = {
  env: {},
  browser: true,
  version: '',
  versions: {},
  nextTick: (fn, ...args) => queueMicrotask(() => fn(...args)),
};
