/**
 * The Redis keys of the forks under a prefix. On one server they are `<prefix>fork:<id>` (record,
 * version, expiry), `<prefix>fork:<id>:blocks` and `<prefix>forks` (live forks by expiry). On a
 * Redis Cluster a fork's two keys carry the hash tag `{fork:<id>}`: one slot, one primary, so the
 * script that commits a change touches them together, atomically. The index is a key of its own.
 *
 * @example
 * forkKeys('evmsim:', true).blocks('f1') // 'evmsim:{fork:f1}:blocks'
 */
export interface ForkKeys {
  meta(id: string): string
  blocks(id: string): string
  readonly index: string
}

export function forkKeys(prefix: string, cluster: boolean): ForkKeys {
  const base = (id: string) => (cluster ? `${prefix}{fork:${id}}` : `${prefix}fork:${id}`)
  return {
    meta: base,
    blocks: (id) => `${base(id)}:blocks`,
    index: `${prefix}forks`,
  }
}
