// The conformance classes this OGC API Features service declares, as constants joined at
// /map/ogc/conformance. Only what is implemented and tested is listed.

const FEATURES_1 = 'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf';
const FEATURES_2 = 'http://www.opengis.net/spec/ogcapi-features-2/1.0/conf';
const FEATURES_3 = 'http://www.opengis.net/spec/ogcapi-features-3/1.0/conf';
const CQL2 = 'http://www.opengis.net/spec/cql2/1.0/conf';

export const CONFORMANCE = {
  // Part 1: Core, GeoJSON and the OpenAPI 3.0 description (no HTML encoding is served)
  core: `${FEATURES_1}/core`,
  geojson: `${FEATURES_1}/geojson`,
  oas30: `${FEATURES_1}/oas30`,
  // Part 2: coordinate reference systems by reference (crs, bbox-crs, Content-Crs)
  crs: `${FEATURES_2}/crs`,
  // Part 3: queryables, the filter parameters, CQL2 text
  queryables: `${FEATURES_3}/queryables`,
  filter: `${FEATURES_3}/filter`,
  featuresFilter: `${FEATURES_3}/features-filter`,
  cql2Text: `${CQL2}/cql2-text`,
  basicCql2: `${CQL2}/basic-cql2`,
  advancedComparison: `${CQL2}/advanced-comparison-operators`,
  caseInsensitive: `${CQL2}/case-insensitive-comparison`,
  basicSpatial: `${CQL2}/basic-spatial-functions`,
  basicSpatialPlus: `${CQL2}/basic-spatial-functions-plus`,
  spatialFunctions: `${CQL2}/spatial-functions`,
  propertyProperty: `${CQL2}/property-property`,
} as const;

export const CONFORMS_TO: string[] = Object.values(CONFORMANCE);
