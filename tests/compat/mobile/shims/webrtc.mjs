// react-native-webrtc's API over werift (pure TypeScript WebRTC), pinned to loopback.
import * as w from 'werift'
export class RTCPeerConnection extends w.RTCPeerConnection {
  constructor(config) {
    super({ ...config, iceServers: [], iceUseIpv6: false, iceAdditionalHostAddresses: ['127.0.0.1'] })
  }
}
export class RTCSessionDescription {
  constructor(init) { this.sdp = init.sdp; this.type = init.type }
}
export const RTCIceCandidate = w.RTCIceCandidate
