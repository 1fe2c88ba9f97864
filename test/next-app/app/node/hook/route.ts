import { conformanceRoute } from "../../../conformance-route.ts";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = conformanceRoute;
export const POST = conformanceRoute;
export const PUT = conformanceRoute;
export const DELETE = conformanceRoute;
export const PATCH = conformanceRoute;
