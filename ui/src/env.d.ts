/** Stylesheets imported for the bundler (esbuild collects them into app.css). */
declare module '*.css';
