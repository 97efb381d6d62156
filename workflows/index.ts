// Every workflow the worker registers.
export { ingestAllWorkflow, ingestJurisdictionWorkflow, ingestSourceWorkflow } from './ingest.ts';
export { extractWorkflow } from './extract.ts';
export { deliveryWorkflow } from './delivery.ts';
