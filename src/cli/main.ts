export async function main(argv: string[]): Promise<number> {
  void argv;
  return 0;
}
