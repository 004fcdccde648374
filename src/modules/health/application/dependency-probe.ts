/** Port: whether the database and the queue answer right now (each check bounded, so /health never hangs). */
export abstract class DependencyProbe {
  abstract allReachable(): Promise<boolean>;
}
