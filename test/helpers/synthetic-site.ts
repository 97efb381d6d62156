// The synthetic town's website lives beside the CLI (landlex sample serves it too).
export * from '../../bin/synthetic-site.ts';
