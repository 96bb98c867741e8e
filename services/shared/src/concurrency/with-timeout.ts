/**
 * `promise`'s outcome, or `onTimeout()`'s (a value, or a throw) when `ms` pass first. The promise is not cancelled:
 * its work goes on and its late outcome is dropped. The timer never keeps the process alive.
 */
export function withTimeout<T, F>(promise: Promise<T>, ms: number, onTimeout: () => F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error);
      }
    }, ms).unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
