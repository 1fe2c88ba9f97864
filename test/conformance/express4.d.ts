// express@4 installed under the alias "express4" for the compatibility run. Express 5's
// types cover the little of it the tests use (the app, json/urlencoded/text/raw).
declare module "express4" {
  import express from "express";
  export default express;
}
