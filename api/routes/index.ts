// Every route of the API, by group. The server and the OpenAPI document both read this list.
import type { Route } from '../route.ts';
import { jurisdictionRoutes } from './jurisdiction.ts';
import { metaRoutes } from './meta.ts';
import { accountRoutes } from './account.ts';
import { keyRoutes } from './keys.ts';
import { billingRoutes } from './billing.ts';
import { placeRoutes } from './place.ts';
import { changeRoutes } from './changes.ts';
import { evidenceRoutes } from './evidence.ts';
import { documentRoutes } from './documents.ts';
import { districtRoutes } from './districts.ts';
import { parcelRoutes } from './parcels.ts';
import { coverageRoutes } from './coverage.ts';
import { codeRoutes } from './code.ts';
import { processRoutes } from './process.ts';
import { planRoutes } from './plan.ts';
import { ruleRoutes } from './rule.ts';
import { placeBatchRoutes } from './place-batch.ts';
import { suggestionRoutes } from './suggestion.ts';
import { zoningRoutes } from './zoning.ts';
import { extractRoutes } from './extracts.ts';
import { conformanceRoutes } from './conformance.ts';
import { regionRoutes } from './region.ts';
import { ogcRoutes } from '../../ogc/routes.ts';
import { imageRoutes, tileRoutes } from '../../tiles/routes.ts';
import { viewerRoutes } from '../../tiles/viewer.ts';

export const allRoutes: Route[] = [...metaRoutes, ...accountRoutes, ...keyRoutes, ...billingRoutes, ...jurisdictionRoutes, ...placeRoutes, ...changeRoutes, ...evidenceRoutes, ...documentRoutes, ...districtRoutes, ...parcelRoutes, ...coverageRoutes, ...codeRoutes, ...processRoutes, ...planRoutes, ...ruleRoutes, ...placeBatchRoutes, ...suggestionRoutes, ...zoningRoutes, ...extractRoutes, ...conformanceRoutes, ...regionRoutes, ...ogcRoutes, ...tileRoutes, ...imageRoutes, ...viewerRoutes];
