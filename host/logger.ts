/** the logger the host writes to (pino satisfies it) */
export interface HostLogger {
  info(o: object, msg?: string): void
  warn(o: object, msg?: string): void
  error(o: object, msg?: string): void
  /** the log destination may be asynchronous: calls back once the lines written are out */
  flush(cb: () => void): void
  child(bindings: object): HostLogger
}
