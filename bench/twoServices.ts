/**
 * What a feature costs a request, measured on two services side by side: both fork the same
 * upstream, one is given what the feature needs (e.g. a build-info), and the same request goes to
 * each in turn, so both see the same machine load. The ratio of the medians is the result.
 */

export interface Service {
  url: string
  stop(): Promise<void>
}

/** two services over `rpcUrl`, handed to `use`, and both stopped after it, whatever it did */
export async function withTwoServices<T>(
  start: (rpcUrl: string) => Promise<Service>,
  rpcUrl: string,
  use: (without: Service, withFeature: Service) => Promise<T>,
): Promise<T> {
  const without = await start(rpcUrl)
  const withFeature = await start(rpcUrl).catch(async (e) => {
    await without.stop()
    throw e
  })
  try {
    return await use(without, withFeature)
  } finally {
    await without.stop()
    await withFeature.stop()
  }
}

/** `request` sent to each side alternately: `warmup` rounds untimed, then `iterations` timed */
export async function alternateTimes(
  without: Service,
  withFeature: Service,
  request: (svc: Service) => Promise<unknown>,
  iterations: number,
  warmup: number,
): Promise<{ withoutMs: number[]; withMs: number[] }> {
  for (let i = 0; i < warmup; i++) {
    await request(without)
    await request(withFeature)
  }
  const time = async (svc: Service) => {
    const t = performance.now()
    await request(svc)
    return performance.now() - t
  }
  const withoutMs: number[] = []
  const withMs: number[] = []
  for (let i = 0; i < iterations; i++) {
    withoutMs.push(await time(without))
    withMs.push(await time(withFeature))
  }
  return { withoutMs, withMs }
}
