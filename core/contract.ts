// Identification of the contract and vocabulary every answer carries (spec 9).
export const API_VERSION = 'v1';
export const CONTRACT_DATE = '2026-11-01';
export const VOCABULARY_VERSION = '2026-11.1';
export const SERVICE_NAME = 'Landlex';
