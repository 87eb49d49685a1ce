/**
 * `evm-sim serve`: the service as `npm start` runs it (src/main.ts), configured by the same
 * variables and files (README "Configuration"); each flag sets its variable for this process.
 */
import { parseFlags } from './usage.js'

/** flag → the configuration variable it sets */
const FLAG_VARIABLES = {
  port: 'PORT',
  host: 'HOST',
  'rpc-url': 'RPC_URL',
  'cache-url': 'CACHE_URL',
  'auth-token': 'AUTH_TOKEN',
  workers: 'WORKERS',
  processes: 'PROCESSES',
  env: 'APP_ENV',
  'log-level': 'LOG_LEVEL',
  'chain-id': 'CHAIN_ID',
  hardfork: 'HARDFORK',
} as const

const HELP = `evm-sim serve [options]: the service, as npm start

${Object.entries(FLAG_VARIABLES)
  .map(([flag, variable]) => `  --${flag.padEnd(12)} sets ${variable}`)
  .join('\n')}

Every other setting: its variable or config/<APP_ENV>.toml (README "Configuration").
`

export async function run(argv: string[]): Promise<number | undefined> {
  const options = Object.fromEntries([...Object.keys(FLAG_VARIABLES).map((f) => [f, { type: 'string' }] as const), ['help', { type: 'boolean' }] as const])
  const { values } = parseFlags(argv, options as Record<string, { type: 'string' | 'boolean' }>)
  if (values.help) {
    process.stdout.write(HELP)
    return 0
  }
  for (const [flag, variable] of Object.entries(FLAG_VARIABLES)) {
    const value = values[flag]
    if (typeof value === 'string') process.env[variable] = value
  }
  await import('../main.js')
  return undefined
}
