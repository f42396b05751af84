// Loaded first (`node --import`) into each child of `npm start` (scripts/start.mjs), which gives
// them an IPC channel for this alone. When `npm start` is gone without stopping them (SIGKILL, an
// out-of-memory kill, a crash), the channel closes: the child stops itself as on Ctrl-C, with its
// own SIGTERM handling (the emulator closes its storage), instead of running on unowned.
if (process.channel) {
  // The channel must not keep a child alive that is otherwise done.
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
