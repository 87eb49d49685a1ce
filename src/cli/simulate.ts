export async function run(_a: string[]): Promise<number | undefined> {
  return 2
}
