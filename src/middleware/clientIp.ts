/**
 * The client's IP address for rate limiting (interface §11). With `trustProxy` = 0 it is the
 * socket's peer. With N > 0 trusted proxy hops it is the N-th `X-Forwarded-For` entry from the
 * right: the address the outermost trusted proxy saw. Entries further left were written by the
 * client itself and are never trusted. With fewer entries than N the leftmost is used (the
 * request passed fewer proxies than configured), as Express does.
 */
import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'
import type { HttpEnv } from '../httpEnv.js'

export function clientIp(c: Context<HttpEnv>, trustProxy: number): string {
  const socket = socketAddress(c)
  if (trustProxy <= 0) return socket
  const forwarded = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  if (forwarded.length === 0) return socket
  return forwarded[Math.max(0, forwarded.length - trustProxy)]!
}

function socketAddress(c: Context<HttpEnv>): string {
  try {
    return getConnInfo(c as unknown as Parameters<typeof getConnInfo>[0]).remote.address ?? 'unknown'
  } catch {
    // no node socket (app.request() in-process): one shared bucket
    return 'unknown'
  }
}
