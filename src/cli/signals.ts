/** Resolves on the first SIGINT or SIGTERM, so commands can shut down in order. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const done = (sig: NodeJS.Signals) => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve(sig);
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
