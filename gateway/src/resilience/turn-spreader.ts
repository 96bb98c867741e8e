/**
 * Runs jobs a few per turn of the event loop (`perTurn`, in the order given), each batch after the I/O of the turn
 * before: work that arrives all at once — a flood's thousand refusals — is then interleaved with every other request's
 * I/O instead of holding it for the whole batch.
 */
export function turnSpreader(perTurn: number): (job: () => void) => void {
  const pending: Array<() => void> = [];
  const runSome = () => {
    for (const job of pending.splice(0, perTurn)) job();
    if (pending.length > 0) setImmediate(runSome);
  };
  return (job) => {
    pending.push(job);
    if (pending.length === 1) setImmediate(runSome);
  };
}
