// Stands in for Node's url/http/https modules, which only jszmq's server side (its listener) uses.
module.exports = {};
