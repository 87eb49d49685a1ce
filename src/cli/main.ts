#!/usr/bin/env node
/**
 * `evm-sim`, the package's command: `node` (a development node, as `anvil`), `serve` (the service,
 * as `npm start`), `trace` and `simulate` (the engine in this process, a result in the terminal).
 * Each command is loaded only when asked for, so `evm-sim node` starts without the others' code.
 * Bad input is one line on stderr and exit code 2 (src/cli/usage.ts).
 */
import { packageVersion } from '../../config/projectRoot.js'
import { CliError, exitWith } from './usage.js'

const HELP = `evm-sim <command> [options]

  node       a development node, as anvil: --fork-url, --fork-block-number, --port, --host, --chain-id,
             --accounts, --balance, --mnemonic, --block-time, --no-mining, --state, --silent,
             --rate-limit, --auth-token
  serve      the service, as npm start: --port, --host, --rpc-url, --cache-url, --auth-token, --workers, --env
  trace      the decoded call tree of a transaction (trace <hash>) or a call (--to … --data … | --sig … args)
             against --rpc-url; --json prints the callTree JSON
  simulate   a call's status, gas, decoded logs and asset changes against --rpc-url

  evm-sim <command> --help   the options of one command
`

const commands: Record<string, () => Promise<{ run(argv: string[]): Promise<number | undefined> }>> = {
  node: () => import('./node.js'),
  serve: () => import('./serve.js'),
  trace: () => import('./trace.js'),
  simulate: () => import('./simulate.js'),
}

async function main(argv: string[]): Promise<number | undefined> {
  const [command, ...rest] = argv
  if (command === '--version' || command === '-V') {
    process.stdout.write(`evm-sim ${packageVersion()}\n`)
    return 0
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP)
    return 0
  }
  const load = commands[command]
  if (!load) throw new CliError(`unknown command '${command}': one of ${Object.keys(commands).join(', ')} (evm-sim --help)`)
  return (await load()).run(rest)
}

main(process.argv.slice(2)).then(
  (code) => {
    // a command that keeps serving (node, serve) returns undefined and leaves on a signal
    if (code !== undefined) process.exitCode = code
  },
  (err: unknown) => exitWith(err),
)
