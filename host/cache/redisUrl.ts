/**
 * What a Redis `CACHE_URL` names: one server (`redis://[user:pass@]host:port/db`, `rediss://` for
 * TLS) or a Redis Cluster (`redis+cluster://[user:pass@]host:port[,host:port…]`,
 * `rediss+cluster://` for TLS). The cluster form lists seed nodes: node-redis' `createCluster`
 * takes each as a root node (`rootNodes: [{ url: 'redis://host:port' }, …]`) and learns the rest of
 * the cluster from them; the user, password and TLS apply to every node (its `defaults`). A cluster
 * has database 0 only.
 *
 * @example
 * parseRedisUrl('redis+cluster://:pw@10.0.0.1:7000,10.0.0.2:7000')
 * // { cluster: true, rootUrls: ['redis://10.0.0.1:7000', 'redis://10.0.0.2:7000'], password: 'pw', tls: false }
 */
import { EngineError } from '../../engine/platform/errors.js'

export type RedisTarget = { cluster: false; url: string } | { cluster: true; rootUrls: string[]; username?: string; password?: string; tls: boolean }

const SINGLE = /^rediss?:\/\//i
const CLUSTER = /^(rediss?)\+cluster:\/\/(?:([^@/?#]*)@)?([^/?#]+)(\/[^?#]*)?$/i

/** a URL naming Redis (one server or a cluster), rather than the in-process store */
export function isRedisUrl(url: string): boolean {
  return SINGLE.test(url.trim()) || /^rediss?\+cluster:\/\//i.test(url.trim())
}

export function isClusterUrl(url: string): boolean {
  return /^rediss?\+cluster:\/\//i.test(url.trim())
}

/** `url` checked and taken apart; a bad one is a VALIDATION_ERROR naming the URL without its password */
export function parseRedisUrl(url: string): RedisTarget {
  const trimmed = url.trim()
  if (!isClusterUrl(trimmed)) return { cluster: false, url: trimmed }
  const m = CLUSTER.exec(trimmed)
  const bad = (why: string) =>
    new EngineError('VALIDATION_ERROR', `cache url ${why}`, { url: redactUrl(trimmed) }, 'use redis+cluster://[user:pass@]host:port[,host:port…]')
  if (!m) throw bad('is not a valid Redis Cluster URL')
  const [, scheme = '', auth, hosts = '', path] = m
  const db = (path ?? '').replace(/^\//, '')
  if (db !== '' && db !== '0') throw bad(`database "${db}": a Redis Cluster has database 0 only`)
  const rootUrls = hosts.split(',').map((h) => {
    const node = h.trim()
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):\d{1,5}$/i.test(node)) throw bad(`node "${node}" is not host:port`)
    return `redis://${node}`
  })
  const [user, pass] = auth === undefined ? [] : splitAuth(auth)
  return {
    cluster: true,
    rootUrls,
    ...(user && { username: user }),
    ...(pass !== undefined && pass !== '' && { password: pass }),
    tls: scheme.toLowerCase() === 'rediss',
  }
}

function splitAuth(auth: string): [string | undefined, string | undefined] {
  const i = auth.indexOf(':')
  const user = decodeURIComponent(i < 0 ? auth : auth.slice(0, i))
  const pass = i < 0 ? undefined : decodeURIComponent(auth.slice(i + 1))
  return [user || undefined, pass]
}

/** the URL without its password (and user), safe for logs and errors */
export function redactUrl(url: string): string {
  const trimmed = url.trim()
  if (isClusterUrl(trimmed)) {
    const m = CLUSTER.exec(trimmed)
    if (!m) return '<invalid url>'
    return `${m[1]!.toLowerCase()}+cluster://${m[2] ? '***:***@' : ''}${m[3]}${m[4] ?? ''}`
  }
  try {
    const u = new URL(trimmed)
    if (u.password) u.password = '***'
    if (u.username) u.username = '***'
    return u.toString()
  } catch {
    return '<invalid url>'
  }
}
